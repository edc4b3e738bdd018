package run

import (
	"fmt"
	"maps"

	"dbbench/runners/environment"
	"dbbench/runners/matrix"
	"dbbench/runners/results"
	"dbbench/runners/target"
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
		if err := target.Agree(o.Matrix.Langs[lang], o.targetOptions("")); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// environment is the machine's facts plus, for each language and server of the run, what
// its launcher records: the runtime's version and each layer's library version.
func (o *Options) environment(vs []matrix.Variant) map[string]string {
	env := environment.Collect(o.Root)
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
		maps.Copy(env, launcher.Environment(o.targetOptions(""), v.Lang, layers))
	}
	for k, v := range env {
		if v == "" {
			env[k] = "unknown"
		}
	}
	return env
}

// langFacts copies what the matrix says of the run's languages into results.json, so a
// report needs nothing but that file.
func langFacts(m *matrix.Matrix, vs []matrix.Variant) map[string]*results.Lang {
	out := map[string]*results.Lang{}
	for _, v := range vs {
		l := m.Langs[v.Lang]
		if out[v.Lang] == nil {
			out[v.Lang] = &results.Lang{Baseline: l.Baseline, Default: l.DefaultServer(), Servers: map[string]*results.Server{}}
		}
		s := l.Servers[v.Server]
		out[v.Lang].Servers[v.Server] = &results.Server{Launcher: s.Launcher, Pool: s.Pool}
	}
	return out
}
