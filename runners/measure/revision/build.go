package revision

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"dbbench/runners/results"
)

// The Go target is its own module, go/, built as one (GOWORK=off): its go.mod alone
// decides its dependencies and its toolchain, as an application's would. In the
// workspace (go.work) the runners' requirements would win: with go/go.mod at
// go-sql-driver/mysql v1.8.1 and runners/go.mod at v1.10.1, a workspace build links
// v1.10.1, and an upgrade measured so compares a build with itself.
const (
	goModule = "go"
	GoTarget = "./cmd/gotarget"
	binary   = "gotarget"
)

// Build is one revision ready to serve: its tree (php/ is the PHP targets' code) and
// the directory that holds its Go target.
type Build struct {
	Rev    *results.Rev
	Root   string
	BinDir string
}

// Builds are A's and B's, in a scratch directory that Remove deletes.
type Builds struct {
	A, B    Build
	scratch string
}

// Prepare exports and builds a and b from repo under a new directory in tmp ("": the
// system's). Two sides of the same tree share one build. On an error everything made
// so far is removed.
func Prepare(ctx context.Context, repo, tmp string, a, b *results.Rev, log io.Writer) (*Builds, error) {
	scratch, err := os.MkdirTemp(tmp, "dbbench-ab-")
	if err != nil {
		return nil, fmt.Errorf("ab: %w", err)
	}
	bs := &Builds{scratch: scratch}
	if bs.A, err = prepare(ctx, repo, filepath.Join(scratch, "a"), a, log); err != nil {
		bs.Remove()
		return nil, err
	}
	if a.Commit == b.Commit && a.Dirty == b.Dirty && (a.Name == Worktree) == (b.Name == Worktree) {
		bs.B = Build{Rev: b, Root: bs.A.Root, BinDir: bs.A.BinDir}
		return bs, nil
	}
	if bs.B, err = prepare(ctx, repo, filepath.Join(scratch, "b"), b, log); err != nil {
		bs.Remove()
		return nil, err
	}
	return bs, nil
}

// Remove deletes every export and build. Safe to call twice.
func (bs *Builds) Remove() error {
	if bs == nil || bs.scratch == "" {
		return nil
	}
	err := os.RemoveAll(bs.scratch)
	bs.scratch = ""
	return err
}

// prepare exports r into dir/src (the working tree is used where it is) and builds its
// Go target into dir/bin.
func prepare(ctx context.Context, repo, dir string, r *results.Rev, log io.Writer) (Build, error) {
	b := Build{Rev: r, Root: repo, BinDir: filepath.Join(dir, "bin")}
	if err := os.MkdirAll(b.BinDir, 0o755); err != nil {
		return b, fmt.Errorf("ab: %w", err)
	}
	if r.Name != Worktree {
		b.Root = filepath.Join(dir, "src")
		fmt.Fprintf(log, "exporting %s (%s) to %s\n", r.Name, r.ID, b.Root)
		if err := export(ctx, repo, r.Commit, b.Root); err != nil {
			return b, fmt.Errorf("revision %s: %w", r.Name, err)
		}
	}
	fmt.Fprintf(log, "building the Go target of %s (%s)\n", r.Name, r.ID)
	bin := filepath.Join(b.BinDir, binary)
	if err := buildGo(ctx, b.Root, bin, dir); err != nil {
		return b, fmt.Errorf("revision %s (%s) does not build: %w", r.Name, r.ID, err)
	}
	if warning := toolchainIgnored(b.Root, bin); warning != "" {
		fmt.Fprintf(log, "warning: revision %s (%s): %s\n", r.Name, r.ID, warning)
	}
	return b, nil
}

// toolchainIgnored says when the Go target's go.mod under root asks for a Go toolchain
// (its toolchain line) that did not build bin: the go command switches only when
// GOTOOLCHAIN lets it, and it is "local" on many a machine. "" when there is nothing
// to say.
func toolchainIgnored(root, bin string) string {
	mod, err := os.ReadFile(filepath.Join(root, goModule, "go.mod"))
	if err != nil {
		return ""
	}
	var asked string
	for _, l := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "toolchain" {
			asked = f[1]
		}
	}
	info, err := buildinfo.ReadFile(bin)
	if asked == "" || err != nil || info.GoVersion == asked {
		return ""
	}
	return fmt.Sprintf("go/go.mod asks for toolchain %s, but %s built it (GOTOOLCHAIN=%s; GOTOOLCHAIN=auto lets the go command fetch the toolchain through the module proxy)",
		asked, info.GoVersion, goEnv("GOTOOLCHAIN"))
}

// goEnv is the go command's setting of key, as `go env` reports it.
func goEnv(key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(out))
}

// export unpacks commit's tree into dir: `git archive | tar -x`.
func export(ctx context.Context, repo, commit, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	archive := exec.CommandContext(ctx, "git", "-C", repo, "archive", "--format=tar", commit)
	unpack := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	unpack.Stdin = pipe
	var errA, errU bytes.Buffer
	archive.Stderr, unpack.Stderr = &errA, &errU
	if err := unpack.Start(); err != nil {
		return fmt.Errorf("tar: %w", err)
	}
	if err := archive.Run(); err != nil {
		unpack.Wait()
		return fmt.Errorf("git archive %s: %v: %s", commit, err, strings.TrimSpace(errA.String()))
	}
	if err := unpack.Wait(); err != nil {
		return fmt.Errorf("tar -x: %v: %s", err, strings.TrimSpace(errU.String()))
	}
	return nil
}

// logTail is how many lines of a failed build's log its error quotes.
const logTail = 15

// buildGo builds the Go target of the tree at root, as its own module, into out, its output in dir's
// build.log. The go command and the compilers it starts are one process group, ended
// together when ctx is (an interrupt must leave no compiler running), and its own
// temporary files are in dir, which goes with the builds (a killed go command cannot
// remove them).
func buildGo(ctx context.Context, root, out, dir string) error {
	logFile, gotmp := filepath.Join(dir, "build.log"), filepath.Join(dir, "gotmp")
	if err := os.MkdirAll(gotmp, 0o755); err != nil {
		return err
	}
	cmd := GoBuild(ctx, root, out)
	cmd.Env = append(cmd.Env, "GOTMPDIR="+gotmp)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	err := cmd.Run()
	if werr := os.WriteFile(logFile, buf.Bytes(), 0o644); werr != nil && err == nil {
		return werr
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return fmt.Errorf("go build %s (in %s/): %v; the last lines of its log:\n%s", GoTarget, goModule, err, tail(buf.String(), logTail))
	}
	return nil
}

// GoBuild is the command that builds the Go target of the tree at root into out, as
// `make build` does: in go/, as its own module. Every test that builds a gotarget uses
// it, so the tests link the dependency versions the shipped binary links. tags (such as
// "leak", the test build) are passed to go build.
func GoBuild(ctx context.Context, root, out string, tags ...string) *exec.Cmd {
	if abs, err := filepath.Abs(out); err == nil {
		out = abs // the command runs in go/, and out is the caller's
	}
	args := []string{"build", "-o", out}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.CommandContext(ctx, "go", append(args, GoTarget)...)
	cmd.Dir = filepath.Join(root, goModule)
	cmd.Env = append(os.Environ(), "GOWORK=off")
	return cmd
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
