// Package revision turns the two revisions dbbench ab is given into builds: the commit
// each one names (or the working tree as it is), whether the two agree on what the
// database holds, and each one's tree exported to a scratch directory with its Go
// target built there. Nothing is registered in the repository: an export is
// `git archive` unpacked, so a run killed outright leaves a temporary directory and
// nothing else.
package revision

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"

	"dbbench/runners/results"
)

// Worktree names the working tree as it is, uncommitted changes included.
const Worktree = "WORKTREE"

// Resolve finds the commit name stands for in the repository repo, or, for Worktree,
// the working tree on top of HEAD. An unknown name is one clear line.
func Resolve(ctx context.Context, repo, name string) (*results.Rev, error) {
	if name == "" || strings.HasPrefix(name, "-") {
		return nil, fmt.Errorf("revision %q: want a commit, a branch, a tag or %s", name, Worktree)
	}
	spec := name
	if name == Worktree {
		spec = "HEAD"
	}
	commit, err := git(ctx, repo, "rev-parse", "--verify", "--quiet", "--end-of-options", spec+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("unknown revision %q: %s has no commit of that name", name, repo)
	}
	short, err := git(ctx, repo, "rev-parse", "--short", commit)
	if err != nil {
		return nil, err
	}
	subject, err := git(ctx, repo, "log", "-1", "--format=%s", commit)
	if err != nil {
		return nil, err
	}
	r := &results.Rev{ID: short, Name: name, Commit: commit, Subject: subject}
	if name == Worktree {
		status, err := git(ctx, repo, "status", "--porcelain", "--untracked-files=normal")
		if err != nil {
			return nil, err
		}
		if r.Dirty = status != ""; r.Dirty {
			r.ID += "-dirty"
		}
	}
	return r, nil
}

// Pair resolves A and B. When both are the same (an A/A), B's ID gets "-b", so that
// every variant has a key of its own on each side.
func Pair(ctx context.Context, repo, a, b string) (*results.Rev, *results.Rev, error) {
	ra, err := Resolve(ctx, repo, a)
	if err != nil {
		return nil, nil, err
	}
	rb, err := Resolve(ctx, repo, b)
	if err != nil {
		return nil, nil, err
	}
	if rb.ID == ra.ID {
		rb.ID += "-b"
	}
	return ra, rb, nil
}

// git runs git in repo and returns its output, trimmed; an error carries its stderr.
func git(ctx context.Context, repo string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", repo}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}
