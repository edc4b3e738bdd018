package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/results"
)

// clone is a scratch clone of this repository's HEAD (objects shared, nothing copied),
// where a test may commit: dbbench ab runs in it through DBBENCH_ROOT.
func clone(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	gitIn(t, "../../..", "clone", "-q", "--shared", ".", dir)
	return dir
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=dbbench test", "-c", "user.email=test@example.com"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// commitChange replaces old with new in file (once, which must be there) and commits.
func commitChange(t *testing.T, repo, file, old, new, msg string) {
	t.Helper()
	path := filepath.Join(repo, file)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s no longer holds %q: update this test's planted change", file, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "commit", "-q", "-am", msg)
}

// commitFile writes a new file and commits it.
func commitFile(t *testing.T, repo, file, text, msg string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, file), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, repo, "add", file)
	gitIn(t, repo, "commit", "-q", "-m", msg)
}

// What dbbench ab refuses before it builds or measures anything, and a revision that
// does not build: one clear line each, with the status a script can tell apart.
func TestABBadInput(t *testing.T) {
	repo := clone(t)
	commitFile(t, repo, "go/layers/raw/broken.go", "package raw\n\nvar broken int = \"not an int\"\n", "break the raw layer")
	commitFile(t, repo, "schema/note.txt", "A new file is a change too.\n", "touch the schema")
	env := []string{"DBBENCH_ROOT=" + repo, "TMPDIR=" + t.TempDir()}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"one revision", []string{"ab", "HEAD"}, exitUsage, "ab: want two revisions, A and B"},
		{"unknown revision", []string{"ab", "HEAD", "no-such-rev"}, exitUsage, `unknown revision "no-such-rev"`},
		{"schema differs", []string{"ab", "HEAD~1", "HEAD"}, exitUsage, "differ in what the database holds (schema/, fixtures/), so one database cannot serve both: schema/note.txt"},
		{"does not build", []string{"ab", "HEAD~1", "HEAD~2"}, exitFailed, `revision HEAD~1 (` /* its hash */},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := dbbench(t, env, tc.args...)
			line := errorLine(t, stderr)
			if code != tc.code || !strings.Contains(line, tc.want) {
				t.Fatalf("exit status %d, want %d, and one 'dbbench: ' line with %q; stderr:\n%s", code, tc.code, tc.want, stderr)
			}
			if tc.name == "does not build" && (!strings.Contains(line, "does not build") || !strings.Contains(stderr, `"not an int"`)) {
				t.Errorf("a broken revision must say so and quote its build log; stderr:\n%s", stderr)
			}
		})
	}
	if left, _ := os.ReadDir(strings.TrimPrefix(env[1], "TMPDIR=")); len(left) > 0 {
		t.Errorf("left behind: %v", left)
	}
}

// plantedWork adds CPU to each request of the raw layer and nothing else: the same
// response, no allocation, no command. The loop's result is used, so it stays.
const plantedWork = `
	if spin(u.ID) == 1 {
		u.Name += ""
	}
	return u, nil
}

// spin is dbbench ab's planted change: CPU per request, about a nanosecond a step.
func spin(id uint32) uint64 {
	h := uint64(id)
	for i := 0; i < 600000; i++ {
		h = h*1099511628211 ^ uint64(i)
	}
	return h
}
`

// An A/A of one Go variant flags nothing; a revision whose raw layer does about 14
// times its CPU work per request is found, and hello, which it does not touch, is not.
//
// Why neither can fail by chance: both use --threshold 30, and a figure fails the gate
// only when its whole 95% interval lies past it. With 6 pairs (the fewest a comparison
// gets) the interval runs from the lowest pair ratio to the highest, and with more it
// is narrower. With no change, all 6 ratios of CPU or req/s would have to land past
// +30% (or −23%) together. One pair's ratio spreads by 5–20% in these 300 ms turns
// (req/s the most, while another benchmark loaded the same 2 cores), so each does with
// a chance below 10%: below 1e-6 for all 6, the drift that pairs share cancelled.
// The planted loop (600000 multiply-xor steps, about 0.7 ms: 60000 measured +71 µs)
// makes raw's CPU per request about 14 times its 55 µs (a ratio, so on a faster
// machine too), so a pair ratio below 1.30 would be 90% off. A doubling was not enough: with a benchmark
// loading the same 2 cores, one of its 6 pairs came in at +5.4%, and the interval
// [+5.4%, +192%] reached inside the threshold.
func TestABFindsAPlantedChangeAndNothingInAnAA(t *testing.T) {
	if testing.Short() {
		t.Skip("measures: skipped in -short mode")
	}
	repo := clone(t)
	tmp := t.TempDir()
	env := []string{"DBBENCH_ROOT=" + repo, "TMPDIR=" + tmp}
	common := []string{"--preset", "smoke", "--profile=false", "--rows", "1000", "--budget", "3s", "--threshold", "30", "--fail-on", "regression"}

	aa := filepath.Join(t.TempDir(), "aa")
	code, stdout, stderr := dbbench(t, env, append([]string{"ab", "HEAD", "HEAD", "--out", aa,
		"--variants", "^lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/"}, common...)...)
	if code != 0 || !strings.Contains(stdout, "Did B cost anything?") || strings.Contains(stdout, "Yes.") {
		t.Fatalf("A/A: exit status %d, want 0 and no regression\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	res, err := results.Read(filepath.Join(aa, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if res.AB == nil || res.AB.B.ID != res.AB.A.ID+"-b" || len(res.Variants) != 2 || len(res.Comparisons) != 1 || len(res.Comparisons[0].Pairs) < 6 {
		t.Fatalf("A/A: want one variant on each side, paired at least 6 times; results: %+v", res.Comparisons)
	}
	t.Logf("A/A:\n%s", stdout)

	commitChange(t, repo, "go/layers/raw/raw.go", "\treturn u, nil\n}\n", plantedWork, "raw: about 14 times the CPU per request (planted)")
	planted := filepath.Join(t.TempDir(), "planted")
	code, stdout, stderr = dbbench(t, env, append([]string{"ab", "HEAD~1", "HEAD", "--out", planted,
		"--variants", "^lang=go/server=nethttp/layer=(hello|raw)/stmt=(none|interpolate)/conn=(none|persistent)/"}, common...)...)
	line := errorLine(t, stderr)
	if code != exitGate || !strings.Contains(line, "layer=raw/stmt=interpolate/conn=persistent/pool=8: app CPU per request +") || strings.Contains(line, "layer=hello") {
		t.Fatalf("planted: exit status %d, want %d with raw's CPU and not hello in the gate's line\nstdout:\n%s\nstderr:\n%s", code, exitGate, stdout, stderr)
	}
	t.Logf("planted:\n%s", stdout)
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind in %s: %v", tmp, left)
	}
	if out, _ := exec.Command("pgrep", "-f", tmp).Output(); len(out) > 0 {
		t.Errorf("processes left running from %s: %s", tmp, out)
	}
}

// A and B may stand before, between or after the flags, as people type them; after
// "--" everything is a revision. --threshold is --margin's earlier name.
func TestABReadsRevisionsAmongFlags(t *testing.T) {
	for _, args := range [][]string{
		{"main", "WORKTREE", "--margin", "5", "--fail-on", "regression"},
		{"main", "WORKTREE", "--threshold", "5", "--fail-on", "regression"},
		{"--threshold", "5", "main", "--fail-on", "regression", "WORKTREE"},
		{"--threshold", "5", "--fail-on", "regression", "--", "main", "WORKTREE"},
	} {
		c, err := readAB(newFlagSet("ab", io.Discard), args)
		if err != nil || c.a != "main" || c.b != "WORKTREE" || !c.gate || c.opts.Margin != 0.05 {
			t.Errorf("%q: a=%q b=%q gate=%v margin=%v, %v", args, c.a, c.b, c.gate, c.opts.Margin, err)
		}
	}
	if _, err := readAB(newFlagSet("ab", io.Discard), []string{"main", "WORKTREE", "extra"}); !errors.Is(err, errUsage) {
		t.Errorf("three revisions: %v, want a usage error", err)
	}
}

// Ctrl-C while a revision builds: exit status 130, and no export, build or compiler
// left behind.
func TestABInterruptedLeavesNothing(t *testing.T) {
	repo := clone(t)
	// B is A and a comment: whatever the repository's last commit touched (a fixture,
	// which ab refuses to compare across), these two revisions may be compared.
	commitChange(t, repo, "go/layers/raw/raw.go", "// Package raw is the raw layer", "// Package raw, a comment B adds, is the raw layer", "B: a comment")
	tmp := t.TempDir()
	cmd := exec.Command(bin, "ab", "HEAD~1", "HEAD", "--preset", "smoke", "--variants", "^lang=go/.*layer=raw/stmt=interpolate/conn=persistent/")
	cmd.Env = append(os.Environ(), "DBBENCH_ROOT="+repo, "TMPDIR="+tmp)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var said strings.Builder
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		said.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "building the Go target of") {
			break
		}
	}
	time.Sleep(500 * time.Millisecond) // the compilers at work: a build takes seconds
	cmd.Process.Signal(syscall.SIGINT)
	rest, _ := io.ReadAll(stderr)
	said.Write(rest)
	err = cmd.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != exitInterrupted || !strings.Contains(said.String(), "interrupted") {
		t.Fatalf("after SIGINT: %v, want exit status %d and a line saying so; stderr:\n%s", err, exitInterrupted, said.String())
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("left behind in %s: %v", tmp, left)
	}
	if out, _ := exec.Command("pgrep", "-f", tmp).Output(); len(out) > 0 {
		t.Errorf("processes left running from %s: %s", tmp, out)
	}
}
