package revision

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/results"
)

// Database are the directories that make the database: its schema and its rows. Two
// revisions that differ there would measure two databases, not two builds of the app.
var Database = []string{"schema", "fixtures"}

// Differ lists the files under paths that differ between a and b (a working tree's
// untracked files too), sorted.
func Differ(ctx context.Context, repo string, a, b *results.Rev, paths ...string) ([]string, error) {
	var out []string
	switch {
	case a.Name == Worktree && b.Name == Worktree:
		return nil, nil
	case a.Name == Worktree || b.Name == Worktree:
		commit := a.Commit
		if a.Name == Worktree {
			commit = b.Commit
		}
		changed, err := lines(ctx, repo, append([]string{"diff", "--name-only", commit, "--"}, paths...)...)
		if err != nil {
			return nil, err
		}
		untracked, err := lines(ctx, repo, append([]string{"ls-files", "--others", "--exclude-standard", "--"}, paths...)...)
		if err != nil {
			return nil, err
		}
		out = append(changed, untracked...)
	default:
		changed, err := lines(ctx, repo, append([]string{"diff", "--name-only", a.Commit, b.Commit, "--"}, paths...)...)
		if err != nil {
			return nil, err
		}
		out = changed
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// SameDatabase refuses two revisions whose schema or fixtures differ, naming the files.
func SameDatabase(ctx context.Context, repo string, a, b *results.Rev) error {
	files, err := Differ(ctx, repo, a, b, Database...)
	if err != nil {
		return err
	}
	if len(files) > 0 {
		return fmt.Errorf("%s and %s differ in what the database holds (%s), so one database cannot serve both: %s",
			a.Name, b.Name, strings.Join(Database, "/, ")+"/", strings.Join(files, ", "))
	}
	return nil
}

func lines(ctx context.Context, repo string, args ...string) ([]string, error) {
	out, err := git(ctx, repo, args...)
	if err != nil || out == "" {
		return nil, err
	}
	return strings.Split(out, "\n"), nil
}
