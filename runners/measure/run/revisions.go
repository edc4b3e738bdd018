package run

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/target"
	"dbbench/runners/results"
)

// Revision is one revision's build, for a run that measures two side by side (dbbench
// ab): its variants carry Rev.ID as their rev=, and their targets start from its tree
// (Root: php/) and its Go target (BinDir).
type Revision struct {
	Rev    *results.Rev
	Root   string
	BinDir string
}

// checkRevisions refuses a list a run cannot compare: it takes none, or A and B.
func (o *Options) checkRevisions() error {
	switch len(o.Revisions) {
	case 0:
		return nil
	case 2:
		a, b := o.Revisions[0].Rev, o.Revisions[1].Rev
		if a == nil || b == nil || a.ID == b.ID {
			return fmt.Errorf("run: two revisions need two different IDs")
		}
		for _, r := range []*results.Rev{a, b} {
			if err := matrix.CheckRev(r.ID); err != nil {
				return fmt.Errorf("run: %w", err)
			}
		}
		return nil
	}
	return fmt.Errorf("run: %d revisions; a run compares two, A and B", len(o.Revisions))
}

// perRevision lists each variant once per revision, A's then B's next to each other,
// so that tables read as pairs; without revisions it returns vs.
func (o *Options) perRevision(vs []matrix.Variant) []matrix.Variant {
	if len(o.Revisions) == 0 {
		return vs
	}
	var out []matrix.Variant
	for _, v := range vs {
		for _, r := range o.Revisions {
			v.Rev = r.Rev.ID
			out = append(out, v)
		}
	}
	return out
}

// ab is the record of the run's two revisions, nil without.
func (o *Options) ab() *results.AB {
	if len(o.Revisions) == 0 {
		return nil
	}
	return &results.AB{A: o.Revisions[0].Rev, B: o.Revisions[1].Rev, Margin: o.Margin}
}

// targetOptions are what a target of revision rev ("" in a run of one) starts from.
func (o *Options) targetOptions(rev, dsnFile string) target.Options {
	root, bin := o.Root, o.BinDir
	if i := slices.IndexFunc(o.Revisions, func(r Revision) bool { return r.Rev.ID == rev }); i >= 0 {
		root, bin = o.Revisions[i].Root, o.Revisions[i].BinDir
	}
	return target.Options{DSNFile: dsnFile, RepoRoot: root, BinDir: bin, Log: io.Discard}
}

// revs are the revisions' IDs, or the one "" of a run of one.
func (o *Options) revs() []string {
	if len(o.Revisions) == 0 {
		return []string{""}
	}
	var out []string
	for _, r := range o.Revisions {
		out = append(out, r.Rev.ID)
	}
	return out
}

// launcherEnvironment is what the launchers of vs's languages and servers record of
// the build that serves revision rev: runtime and library versions.
func (o *Options) launcherEnvironment(vs []matrix.Variant, rev string) map[string]string {
	env := map[string]string{}
	done := map[string]bool{}
	for _, v := range vs {
		key := v.Lang + "/" + v.Server
		if done[key] {
			continue
		}
		done[key] = true
		l := o.Matrix.Langs[v.Lang]
		launcher, err := target.LauncherOf(l.Servers[v.Server])
		if err != nil {
			env["launcher-"+v.Lang+"-"+v.Server] = fmt.Sprint("unknown: ", err)
			continue
		}
		layers := make([]*matrix.Layer, 0, len(l.Layers))
		for _, name := range l.LayerNames() {
			layers = append(layers, l.Layers[name])
		}
		maps.Copy(env, launcher.Environment(o.targetOptions(rev, ""), v.Lang, layers))
	}
	for k, v := range env {
		if v == "" {
			env[k] = "unknown"
		}
	}
	return env
}
