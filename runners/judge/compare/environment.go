package compare

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"dbbench/runners/results"
)

// Environment is what differs between the two runs' environments (versions, CPU,
// kernel, commit) and settings (preset, connections, durations …).
type Environment struct {
	Match       bool         `json:"match"` // no environment key and no setting differs
	Differences []Difference `json:"differences,omitempty"`
	Settings    []Difference `json:"settings,omitempty"`
}

// Difference is one key whose value differs; Old or New is "" when the key is absent
// from that run.
type Difference struct {
	Key string `json:"key"`
	Old string `json:"old"`
	New string `json:"new"`
}

func environment(old, new *results.Run) Environment {
	e := Environment{
		Differences: diff(withTopology(old), withTopology(new)),
		Settings:    diff(flatten(old.Settings), flatten(new.Settings)),
	}
	e.Match = len(e.Differences) == 0 && len(e.Settings) == 0
	return e
}

// withTopology is a run's environment with its topology as one more key: two runs
// whose roles talked over other links (loopback, namespaces, SSH) differ as two
// machines do.
func withTopology(r *results.Run) map[string]string {
	env := maps.Clone(r.Environment)
	if env == nil {
		env = map[string]string{}
	}
	env["topology"] = string(r.TopologyKind())
	if r.Topology != nil {
		// A role on another machine (--app-host) brings that machine's block: runs on
		// two app hosts differ as two machines do.
		for _, p := range r.Topology.Roles {
			if len(p.Environment) == 0 {
				continue
			}
			env[p.Role+"-host"] = p.Host
			for k, v := range p.Environment {
				env[p.Role+"-host "+k] = v
			}
		}
	}
	return env
}

// topologyNote says what a change of topology means for the figures, "" if none.
func topologyNote(old, new *results.Run) string {
	a, b := old.TopologyKind(), new.TopologyKind()
	if a == b {
		return ""
	}
	return fmt.Sprintf("the topologies differ (%s → %s): the roles talked over other links, so latencies and absolute figures "+
		"depend on it and the yardstick does not correct for that; commands per request are counted the same way on both", a, b)
}

// keysOfBoth is every key of a or b, sorted.
func keysOfBoth[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// diff lists the keys of a and b whose values differ, in key order.
func diff(a, b map[string]string) []Difference {
	var out []Difference
	for _, k := range keysOfBoth(a, b) {
		if a[k] != b[k] {
			out = append(out, Difference{Key: k, Old: a[k], New: b[k]})
		}
	}
	return out
}

// flatten renders settings as key → value by their JSON names, nested objects as
// dotted keys (pairing.design), so that a setting added later is compared without a
// list here.
func flatten(s results.Settings) map[string]string {
	b, err := json.Marshal(s)
	if err != nil {
		return nil // Settings holds plain values: it always encodes
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil
	}
	out := map[string]string{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, y := range x {
				walk(prefix+k+".", y)
			}
		default:
			out[strings.TrimSuffix(prefix, ".")] = fmt.Sprint(x)
		}
	}
	walk("", m)
	return out
}

// loadSettings shape the load itself: a figure measured under other values of these is
// another measurement, which no yardstick corrects.
var loadSettings = map[string]bool{
	"connections": true, "rate": true, "keepalive": true, "duration": true, "warmup": true,
	"rows": true, "seed": true, "pairing.slice": true, "pairing.lead_in": true,
}

// loadNote says which of the settings that differ shape the load, "" if none.
func loadNote(settings []Difference) string {
	var parts []string
	for _, d := range settings {
		if loadSettings[d.Key] && d.Old != "" && d.New != "" {
			parts = append(parts, fmt.Sprintf("%s %s → %s", d.Key, d.Old, d.New))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "settings that shape the load differ (" + strings.Join(parts, ", ") + "): absolute figures depend on them " +
		"and the yardstick does not correct for that; within-run ratios and counts depend on them less"
}
