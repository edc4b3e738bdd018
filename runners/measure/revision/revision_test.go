package revision

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repo makes a small repository: a Go target that builds, a schema and fixtures, two
// commits (the second changes the code only) and a tag on the first.
func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, "go.work", "go 1.21\n\nuse ./go\n")
	write(t, dir, "go/go.mod", "module example.com/ab\n\ngo 1.21\n")
	write(t, dir, "go/cmd/gotarget/main.go", "package main\n\nfunc main() {}\n")
	write(t, dir, "schema/schema.sql", "create table users (id int);\n")
	write(t, dir, "fixtures/rows.go", "package fixtures\n")
	run(t, dir, "git", "init", "-q", "-b", "main")
	commit(t, dir, "first")
	run(t, dir, "git", "tag", "v1")
	write(t, dir, "go/cmd/gotarget/main.go", "package main\n\nfunc main() { println() }\n")
	commit(t, dir, "second: the code only")
	return dir
}

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func commit(t *testing.T, dir, msg string) {
	t.Helper()
	run(t, dir, "git", "add", "-A")
	run(t, dir, "git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", msg)
}

func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestResolveNamesCommitsAndTheWorkingTree(t *testing.T) {
	ctx, dir := context.Background(), repo(t)
	head := run(t, dir, "git", "rev-parse", "HEAD")
	r, err := Resolve(ctx, dir, "HEAD")
	if err != nil || r.Commit != head || !strings.HasPrefix(head, r.ID) || r.Subject != "second: the code only" || r.Dirty {
		t.Errorf("HEAD: %+v, %v", r, err)
	}
	if r, err := Resolve(ctx, dir, "v1"); err != nil || r.Subject != "first" {
		t.Errorf("v1: %+v, %v", r, err)
	}
	if r, err := Resolve(ctx, dir, Worktree); err != nil || r.Commit != head || r.Dirty || strings.Contains(r.ID, "dirty") {
		t.Errorf("a clean working tree: %+v, %v", r, err)
	}
	write(t, dir, "go/extra.go", "package x\n") // untracked: still a change
	if r, err := Resolve(ctx, dir, Worktree); err != nil || !r.Dirty || !strings.HasSuffix(r.ID, "-dirty") {
		t.Errorf("a dirty working tree: %+v, %v", r, err)
	}
	for _, bad := range []string{"no-such-branch", "--help", "", "HEAD~9"} {
		_, err := Resolve(ctx, dir, bad)
		if err == nil || strings.Count(err.Error(), "\n") > 0 || !strings.Contains(err.Error(), "revision") {
			t.Errorf("Resolve(%q) = %v, want one line naming the revision", bad, err)
		}
	}
	a, b, err := Pair(ctx, dir, "HEAD", "main")
	if err != nil || a.ID == b.ID || b.ID != a.ID+"-b" {
		t.Errorf("an A/A: %+v %+v %v; want B's ID to be A's with -b", a, b, err)
	}
}

// Revisions that differ in the schema or the fixtures are refused with the files named;
// a change of the code alone is not; the working tree's untracked files count.
func TestSameDatabaseNamesTheFilesThatDiffer(t *testing.T) {
	ctx, dir := context.Background(), repo(t)
	v1, _ := Resolve(ctx, dir, "v1")
	head, _ := Resolve(ctx, dir, "HEAD")
	if err := SameDatabase(ctx, dir, v1, head); err != nil {
		t.Errorf("a change of code only: %v", err)
	}
	write(t, dir, "schema/schema.sql", "create table users (id bigint);\n")
	write(t, dir, "fixtures/more.go", "package fixtures\n")
	wt, _ := Resolve(ctx, dir, Worktree)
	err := SameDatabase(ctx, dir, head, wt)
	if err == nil || !strings.Contains(err.Error(), "fixtures/more.go, schema/schema.sql") {
		t.Errorf("working tree with a new schema and fixture: %v", err)
	}
	if files, _ := Differ(ctx, dir, wt, head, Database...); !slices.Equal(files, []string{"fixtures/more.go", "schema/schema.sql"}) {
		t.Errorf("Differ the other way round: %q", files)
	}
	commit(t, dir, "third: a wider id")
	third, _ := Resolve(ctx, dir, "HEAD")
	if err := SameDatabase(ctx, dir, v1, third); err == nil || !strings.Contains(err.Error(), "schema/schema.sql") {
		t.Errorf("two commits with different schemas: %v", err)
	}
}

// Each side is exported and built in the scratch directory; an A/A shares one build;
// Remove leaves nothing; a revision that does not build says so with its log's tail.
func TestPrepareBuildsEachSideAndRemoveLeavesNothing(t *testing.T) {
	ctx, dir := context.Background(), repo(t)
	tmp := t.TempDir()
	v1, _ := Resolve(ctx, dir, "v1")
	head, _ := Resolve(ctx, dir, "HEAD")
	var log strings.Builder
	bs, err := Prepare(ctx, dir, tmp, v1, head, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	for _, b := range []Build{bs.A, bs.B} {
		if _, err := os.Stat(filepath.Join(b.BinDir, "gotarget")); err != nil {
			t.Errorf("%s: %v", b.Rev.Name, err)
		}
		if b.Root == dir {
			t.Errorf("%s is built in the repository itself", b.Rev.Name)
		}
	}
	src, _ := os.ReadFile(filepath.Join(bs.A.Root, "go/cmd/gotarget/main.go"))
	if strings.Contains(string(src), "println") {
		t.Errorf("A's export holds HEAD's code: %s", src)
	}
	if err := bs.Remove(); err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("Remove left %d entries in %s", len(left), tmp)
	}
	wa, wb, _ := Pair(ctx, dir, Worktree, Worktree)
	bs, err = Prepare(ctx, dir, tmp, wa, wb, &log)
	if err != nil || bs.A.Root != dir || bs.B.BinDir != bs.A.BinDir {
		t.Errorf("WORKTREE twice: %+v, %v; want one build of the repository as it is", bs, err)
	}
	bs.Remove()

	write(t, dir, "go/cmd/gotarget/main.go", "package main\n\nfunc main() { undefinedThing() }\n")
	commit(t, dir, "broken")
	broken, _ := Resolve(ctx, dir, "HEAD")
	_, err = Prepare(ctx, dir, tmp, v1, broken, &log)
	if err == nil || !strings.Contains(err.Error(), "does not build") || !strings.Contains(err.Error(), "undefined: undefinedThing") {
		t.Errorf("a broken revision: %v", err)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("a failed Prepare left %d entries in %s", len(left), tmp)
	}
}

// A target whose go.mod asks for another toolchain than the one that built it gets a
// warning: the go command ignores the request under GOTOOLCHAIN=local.
func TestToolchainIgnoredIsSaid(t *testing.T) {
	ctx, dir := context.Background(), repo(t)
	head, _ := Resolve(ctx, dir, "HEAD")
	bs, err := Prepare(ctx, dir, t.TempDir(), head, head, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer bs.Remove()
	bin := filepath.Join(bs.A.BinDir, "gotarget")
	if w := toolchainIgnored(bs.A.Root, bin); w != "" {
		t.Errorf("no toolchain line, yet: %s", w)
	}
	write(t, bs.A.Root, "go/go.mod", "module example.com/ab\n\ngo 1.21\n\ntoolchain go1.0.1\n")
	if w := toolchainIgnored(bs.A.Root, bin); !strings.Contains(w, "go/go.mod asks for toolchain go1.0.1, but go1.") {
		t.Errorf("go/go.mod asks for go1.0.1: %q", w)
	}
}

// The target is built as its own module: a workspace whose other modules would change
// its dependencies (here, one that is not there at all) does not reach its build.
func TestTheTargetIsBuiltAsItsOwnModule(t *testing.T) {
	ctx, dir := context.Background(), repo(t)
	write(t, dir, "go.work", "go 1.21\n\nuse (\n\t./go\n\t./absent\n)\n")
	commit(t, dir, "a workspace with a module that is not there")
	head, _ := Resolve(ctx, dir, "HEAD")
	bs, err := Prepare(ctx, dir, t.TempDir(), head, head, io.Discard)
	if err != nil {
		t.Fatalf("the workspace reached the target's build: %v", err)
	}
	bs.Remove()
}
