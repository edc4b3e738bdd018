package run

import (
	"fmt"
	"maps"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/environment"
	"dbbench/runners/measure/target"
	"dbbench/runners/results"
)

// specs resolves every variant's facts, and checks before anything starts that the
// matrix and the code of each language's targets agree on the layers and their modes.
func (o *Options) specs(vs []matrix.Variant) (map[string]matrix.Spec, error) {
	out := map[string]matrix.Spec{}
	langs := map[string]bool{}
	for _, v := range vs {
		s, err := o.Matrix.Spec(v)
		if err != nil {
			return nil, err
		}
		out[v.Key()] = s
		langs[v.Lang] = true
	}
	for lang := range langs {
		for _, rev := range o.revs() {
			if err := target.Agree(o.Matrix, o.Matrix.Langs[lang], o.targetOptions(rev, "")); err != nil {
				return nil, revisionSays(rev, err)
			}
		}
	}
	return out, nil
}

// revisionSays names the revision an error of its build comes from.
func revisionSays(rev string, err error) error {
	if rev == "" {
		return err
	}
	return fmt.Errorf("revision %s: %w", rev, err)
}

// environment is the machine's facts plus what the launchers of the run's languages and
// servers record: the runtime's version and each layer's library version. A run of two
// revisions keeps those with each revision (results.Rev), as they differ.
func (o *Options) environment(vs []matrix.Variant) map[string]string {
	env := environment.Collect(o.Root)
	for k, v := range env {
		if v == "" {
			env[k] = "unknown"
		}
	}
	if len(o.Revisions) > 0 {
		for _, r := range o.Revisions {
			r.Rev.Environment = o.launcherEnvironment(vs, r.Rev.ID)
		}
		return env
	}
	maps.Copy(env, o.launcherEnvironment(vs, ""))
	return env
}

// langFacts copies what the matrix says of the run's languages into results.json, so a
// report needs nothing but that file. A mode's default is said for the run's protocol
// where the run reads one.
func langFacts(m *matrix.Matrix, vs []matrix.Variant) map[string]*results.Lang {
	out := map[string]*results.Lang{}
	protocols := map[string]bool{}
	for _, v := range vs {
		protocols[m.ProtocolOf(m.DBName(v))] = true
	}
	protocol := "" // several: each mode's default on every protocol
	if len(protocols) == 1 {
		for p := range protocols {
			protocol = p
		}
	}
	for _, v := range vs {
		l := m.Langs[v.Lang]
		if out[v.Lang] == nil {
			out[v.Lang] = &results.Lang{Baseline: l.Baseline, Default: l.DefaultServer(), Servers: map[string]*results.Server{}}
			for stmt, st := range l.Modes {
				if out[v.Lang].Modes == nil {
					out[v.Lang].Modes = map[string]*results.ModeSetting{}
				}
				out[v.Lang].Modes[stmt] = &results.ModeSetting{Set: st.Set, Default: st.DefaultOn(protocol), Caveat: st.Caveat}
			}
		}
		s := l.Servers[v.Server]
		out[v.Lang].Servers[v.Server] = &results.Server{Launcher: s.Launcher, Pool: s.Pool}
	}
	return out
}
