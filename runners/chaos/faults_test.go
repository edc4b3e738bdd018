package chaos

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/results"
)

const (
	goRaw  = "^lang=go/layer=raw/stmt=interpolate/conn=persistent/"
	phpRaw = "^lang=php/layer=raw/stmt=interpolate/conn=persistent/"
	// The resident worker server's raw variant, in the quick preset.
	phpWorkerRaw = "^lang=php/server=worker/layer=raw/stmt=interpolate/conn=persistent/"
)

// runArgs are the small settings every scenario run uses.
func runArgs(out, variants string, extra ...string) []string {
	return append([]string{"run", "--preset", "smoke", "--variants", variants, "--profile=false",
		"--duration", "1s", "--warmup", "300ms", "--reps", "2", "--rows", "1000", "--out", out}, extra...)
}

func variant(res *results.Run, lang string) *results.Variant {
	for _, v := range res.Variants {
		if v.Lang == lang {
			return v
		}
	}
	return nil
}

func repCount(res *results.Run) int {
	n := 0
	for _, v := range res.Variants {
		n += len(v.Reps)
	}
	return n
}

// 1. The database is killed with SIGKILL during a measured slice.
func TestDatabaseDies(t *testing.T) {
	tmp := newTmp(t)
	out := filepath.Join(tmp, "run")
	p := dbbench(t, tmp, runArgs(out, goRaw+"|"+phpRaw)...)
	if !p.waitFor(`^\[go slice 2\]`, 90*time.Second) {
		t.Fatalf("never reached Go's slice 2:\n%s", p.errText())
	}
	time.Sleep(600 * time.Millisecond) // lead-in: into the measured second
	db := findDescendant(p.cmd.Process.Pid, "mariadbd", 5*time.Second)
	if db == 0 {
		t.Fatal("no mariadbd under dbbench")
	}
	syscall.Kill(db, syscall.SIGKILL)
	code := p.wait(60 * time.Second)
	line := p.oneErrorLine(`run failed: the database (died|stopped answering)`)
	if code == 0 {
		t.Errorf("exit status 0 after the database died")
	}
	res, reps := written(t, out)
	left := leftovers(t, tmp, nil)
	if res == nil {
		t.Fatal("no results.json")
	}
	gov, phpv := variant(res, "go"), variant(res, "php")
	if gov.Valid || gov.InvalidReason == "" {
		t.Errorf("the variant measured when the database died is not marked invalid: %+v", gov)
	}
	if phpv == nil || len(phpv.Reps) != 0 || len(gov.Reps) < 1 {
		t.Errorf("the slices measured before are not all kept, or PHP was measured after the database died: go %d, php %d", len(gov.Reps), len(phpv.Reps))
	}
	if res.Status != "failed" {
		t.Errorf("status %q, want failed", res.Status)
	}
	table.Add(Row{"database dies", "SIGKILL mariadbd in slice 2 (Go raw)",
		fmt.Sprintf("exit %d, %q; go invalid: %s", code, trim(line, 70), trim(gov.InvalidReason, 50)), left,
		fmt.Sprintf("%d slices (results.json, bench.txt whole)", reps)})
}

// 2. A target is killed: the Go server in its slice 1, the php-fpm master in PHP's slice 2.
func TestTargetDies(t *testing.T) {
	tmp := newTmp(t)
	out := filepath.Join(tmp, "run")
	p := dbbench(t, tmp, runArgs(out, goRaw+"|"+phpRaw)...)
	pid := p.cmd.Process.Pid
	if !p.waitFor(`^\[go slice 1\]`, 90*time.Second) {
		t.Fatalf("never reached Go's slice 1:\n%s", p.errText())
	}
	time.Sleep(600 * time.Millisecond)
	gt := findDescendant(pid, "gotarget", 5*time.Second)
	if gt == 0 {
		t.Fatal("no gotarget under dbbench")
	}
	syscall.Kill(gt, syscall.SIGKILL)
	if !p.waitFor(`^\[php slice 2\]`, 60*time.Second) {
		t.Fatalf("never reached PHP's slice 2:\n%s", p.errText())
	}
	time.Sleep(600 * time.Millisecond)
	fpm := 0
	for _, q := range processes() { // the master is dbbench's child; its workers are its own
		if q.ppid == pid && strings.HasPrefix(q.comm, "php-fpm") {
			fpm = q.pid
		}
	}
	if fpm == 0 {
		t.Fatal("no php-fpm master under dbbench")
	}
	syscall.Kill(fpm, syscall.SIGKILL)
	code := p.wait(60 * time.Second)
	line := p.oneErrorLine(`2 of 2 variants invalid`)
	res, reps := written(t, out)
	left := leftovers(t, tmp, nil)
	if res == nil {
		t.Fatal("no results.json")
	}
	if code == 0 {
		t.Error("exit status 0 with invalid variants")
	}
	gov, phpv := variant(res, "go"), variant(res, "php")
	for _, v := range []*results.Variant{gov, phpv} {
		if v.Valid || v.InvalidReason == "" {
			t.Errorf("%s: not marked invalid after its target died", v.Key)
		}
	}
	if len(phpv.Reps) < 1 || phpv.Reps[0].Errors != nil {
		t.Errorf("php's clean slice 1 is not kept: %+v", phpv.Reps)
	}
	if res.Status != "complete" {
		t.Errorf("status %q: the run should go on past a dead target", res.Status)
	}
	table.Add(Row{"target dies (Go)", "SIGKILL gotarget in slice 1",
		fmt.Sprintf("run goes on; go invalid: %s", trim(gov.InvalidReason, 60)), left, fmt.Sprintf("%d slices in all", reps)})
	table.Add(Row{"target dies (PHP)", "SIGKILL php-fpm master in slice 2",
		fmt.Sprintf("exit %d, %q; php invalid: %s", code, trim(line, 40), trim(phpv.InvalidReason, 50)), left,
		fmt.Sprintf("php slice 1 kept (%d slices in all)", reps)})
}

// 2b. One process of PHP's resident worker server is killed with SIGKILL during a
// measured slice: its master forks it again, so the variant recovers (the slice that
// lost the requests in flight may be marked), or it is marked invalid; either way the
// run ends complete and nothing is left running.
func TestResidentWorkerDies(t *testing.T) {
	tmp := newTmp(t)
	out := filepath.Join(tmp, "run")
	args := runArgs(out, phpWorkerRaw)
	args[2] = "quick" // smoke has no resident workers
	p := dbbench(t, tmp, args...)
	pid := p.cmd.Process.Pid
	if !p.waitFor(`^\[php slice 1\]`, 90*time.Second) {
		t.Fatalf("never reached PHP's slice 1:\n%s", p.errText())
	}
	time.Sleep(400 * time.Millisecond)
	worker := residentWorker(pid)
	if worker == 0 {
		t.Fatal("no resident worker under dbbench's worker master")
	}
	syscall.Kill(worker, syscall.SIGKILL)
	code := p.wait(60 * time.Second)
	res, reps := written(t, out)
	left := leftovers(t, tmp, nil)
	if res == nil {
		t.Fatal("no results.json")
	}
	v := variant(res, "php")
	switch {
	case res.Status != "complete":
		t.Errorf("status %q: the run should end complete", res.Status)
	case v.Valid && (code != 0 || len(v.Reps) < 2):
		t.Errorf("valid after its worker died, but exit %d with %d slices", code, len(v.Reps))
	case !v.Valid && (code == 0 || v.InvalidReason == ""):
		t.Errorf("invalid (%q) but exit %d", v.InvalidReason, code)
	}
	outcome := "recovers: valid"
	if !v.Valid {
		outcome = "invalid: " + trim(v.InvalidReason, 60)
	}
	table.Add(Row{"resident worker dies (PHP)", "SIGKILL one worker process in slice 1",
		fmt.Sprintf("exit %d; %s", code, outcome), left, fmt.Sprintf("%d slices in all", reps)})
}

// residentWorker is a worker process of the worker server under dbbench (pid): a php
// process whose parent, the master, is dbbench's child.
func residentWorker(pid int) int {
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		all := processes()
		for _, q := range all {
			master, ok := all[q.ppid]
			if ok && master.ppid == pid && strings.HasPrefix(q.comm, "php") && strings.HasPrefix(master.comm, "php") && q.state != "Z" {
				return q.pid
			}
		}
	}
	return 0
}

// 3. SIGINT or SIGTERM at moments spread over a run's phases.
func TestInterrupt(t *testing.T) {
	type point struct {
		phase string
		after string // stderr line (or "stdout:" + text) that opens the phase
		delay time.Duration
		sig   syscall.Signal
	}
	phases := []struct{ name, after string }{
		{"provisioning", `^provisioning `},
		{"loading", `^embedded mariadbd pid`},
		{"verify", `^\[check 1/1\]`},
		{"round trips", `^\[check 1/1\]`},
		{"measuring", `^\[go slice 1\]`},
		{"reporting", "stdout:reps  req/s"},
	}
	rng := rand.New(rand.NewPCG(8, 20261122))
	var points []point
	for _, ph := range phases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			for k := 0; k < 2; k++ {
				var d time.Duration
				switch ph.name {
				case "round trips":
					d = 150*time.Millisecond + time.Duration(rng.IntN(250))*time.Millisecond
				case "measuring":
					d = time.Duration(rng.IntN(1300)) * time.Millisecond
				case "reporting":
					d = time.Duration(rng.IntN(30)) * time.Millisecond
				default:
					d = time.Duration(rng.IntN(40)) * time.Millisecond
				}
				points = append(points, point{ph.name, ph.after, d, sig})
			}
		}
	}
	if !full { // the shortened form: one point in four phases
		points = []point{points[0], points[9], points[16], points[22]}
	}
	var whole, left, kept, interrupted int
	for i, pt := range points {
		tmp := newTmp(t)
		out := filepath.Join(tmp, "run")
		p := dbbench(t, tmp, runArgs(out, goRaw)...)
		var reached bool
		if strings.HasPrefix(pt.after, "stdout:") {
			want := strings.TrimPrefix(pt.after, "stdout:")
			for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
				if strings.Contains(p.outText(), want) {
					reached = true
					break
				}
			}
		} else {
			reached = p.waitFor(pt.after, 90*time.Second)
		}
		if !reached {
			t.Errorf("point %d (%s): phase never reached:\n%s", i, pt.phase, p.errText())
		}
		time.Sleep(pt.delay)
		p.signal(pt.sig)
		code := p.wait(60 * time.Second)
		res, reps := written(t, out)
		n := leftovers(t, tmp, nil)
		left += n
		kept += reps
		if res != nil && !t.Failed() {
			whole++
		}
		if code != 0 {
			interrupted++
			p.oneErrorLine(`run interrupted`)
			if res != nil && res.Status != "interrupted" {
				t.Errorf("point %d (%s): status %q after %v", i, pt.phase, res.Status, pt.sig)
			}
		}
		t.Logf("point %d: %v %s+%v: exit %d, %d slices kept, %d left", i, pt.sig, pt.phase, pt.delay, code, reps, n)
	}
	table.Add(Row{"interrupted", fmt.Sprintf("SIGINT/SIGTERM at %d points over 6 phases", len(points)),
		fmt.Sprintf("%d interrupted (1 line each), %d finished first; %d/%d runs whole", interrupted, len(points)-interrupted, whole, len(points)),
		left, fmt.Sprintf("%d slices over all points", kept)})
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// cause is an error line without the CLI's closing pointer to the run directory.
func cause(line string) string {
	for _, tail := range []string{"; the ", "; nothing was measured yet"} {
		if i := strings.Index(line, tail); i >= 0 && strings.Contains(line[i:], "measured") {
			return line[:i]
		}
	}
	return line
}

// tail keeps the end of s, where an error line names its cause.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
