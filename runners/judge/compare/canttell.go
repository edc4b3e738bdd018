package compare

import (
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/judge/questions"
)

// Where the evidence cannot tell. Identical code failed the gate in 5 of 6 runs on a
// machine whose kernel had changed (README.md, "Cannot tell"): the fixed work read the
// same speed while everything that crosses the kernel ran 14–28% slower, so a figure
// judged relative to it blamed the code for the machine. compare now says "cannot
// tell" for the parts the evidence cannot judge, and why; those rows have no verdict
// and do not count for the gate, and `--fail-on regression` exits with a status of its
// own (4) when nothing regressed among what could be judged.

// CannotTell is one part of a comparison that could not be judged, and why.
type CannotTell struct {
	Kind Kind `json:"kind"`
	// Units are the units it covers; empty: every unit of Kind.
	Units []string `json:"units,omitempty"`
	// Questions are the within-run ratios' questions it covers; empty: every one.
	Questions []string `json:"questions,omitempty"`
	Reason    string   `json:"reason"`
}

func (c CannotTell) covers(kind Kind, unit, question string) bool {
	return c.Kind == kind && (len(c.Units) == 0 || slices.Contains(c.Units, unit)) &&
		(len(c.Questions) == 0 || slices.Contains(c.Questions, question))
}

// judged reports whether any row of kind got a verdict (was not "cannot tell").
func (r *Result) judged(kind Kind) bool {
	for _, row := range r.Rows {
		if row.Kind == kind && row.Verdict != CannotTellVerdict {
			return true
		}
	}
	return false
}

// coversAGatedRow reports whether c covers a row that could count for the gate: a
// reason that covers none (no comparison of its questions, only hello variants) is no
// reason not to tell.
func (r *Result) coversAGatedRow(c CannotTell) bool {
	for _, row := range r.Rows {
		if row.Verdict == CannotTellVerdict && !row.hello && c.covers(row.Kind, row.Unit, row.Question) {
			return true
		}
	}
	return false
}

// cannotTell reports whether a row of kind, unit and question (a ratio's; "" for the
// other kinds) cannot be judged.
func (r *Result) cannotTell(kind Kind, unit, question string) bool {
	for _, c := range r.CannotTell {
		if c.covers(kind, unit, question) {
			return true
		}
	}
	return false
}

// machineKeys are the environment keys whose change makes two runs two machines, as
// far as a request's cost goes: the kernel (system calls, loopback TCP, scheduling),
// the CPU, the number of cores, the virtualisation, and the links between the roles.
var machineKeys = []string{"kernel", "cpu", "cpu-count", "virtualisation", "topology"}

// machineChange names the machine keys that differ between the runs, "" when none. A
// key that one run lacks (recorded by a later dbbench), or could not read ("unknown"),
// is not a change.
func machineChange(e Environment) string {
	var parts []string
	for _, d := range e.Differences {
		if d.Old == "" || d.New == "" || d.Old == "unknown" || d.New == "unknown" || !isMachineKey(d.Key) {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s → %s", d.Key, d.Old, d.New))
	}
	return strings.Join(parts, ", ")
}

// isMachineKey: one of machineKeys, a role's own host ("app-host": another host is
// another machine), or one of machineKeys on that host ("app-host kernel").
func isMachineKey(key string) bool {
	if strings.HasSuffix(key, "-host") {
		return true
	}
	if _, k, ok := strings.Cut(key, "-host "); ok {
		key = k
	}
	return slices.Contains(machineKeys, key)
}

// machineShaped are the questions whose two sides differ in what the machine's kind,
// not its speed, decides: a connection per request against a pool (TCP set-up,
// authentication, a server thread), and two runtimes or two database servers (process
// models, protocols). Across
// a kernel change Go's per-request over persistent req/s moved −10.8% [−17.0%, −3.5%]
// with the comparisons' spread added, while every layer and stmt ratio stayed (README.md,
// "Cannot tell").
var machineShaped = []string{questions.Conn, questions.Server, questions.DB}

// ratioCannotTell lists why some within-run ratios cannot be judged: on another machine,
// those of the machine-shaped questions.
func ratioCannotTell(res *Result) []CannotTell {
	m := machineChange(res.Environment)
	if m == "" {
		return nil
	}
	return []CannotTell{{Kind: Ratio, Questions: machineShaped, Reason: say("cannot-machine-ratio", map[string]any{"Change": m})}}
}

// absoluteCannotTell lists why absolute figures cannot be judged at all, before the
// rows: another machine, a yardstick missing or unusable, or its two parts (the fixed
// work and the kernel's loopback echo) telling different speeds.
func absoluteCannotTell(res *Result, n norm) []CannotTell {
	var out []CannotTell
	add := func(reason string) { out = append(out, CannotTell{Kind: Absolute, Reason: reason}) }
	if m := machineChange(res.Environment); m != "" {
		add(say("cannot-machine", map[string]any{"Change": m}))
	}
	if !n.on {
		add(say("cannot-no-yardstick", nil))
	}
	if n.kernelOff {
		add(say("cannot-kernel", map[string]any{"Kernel": times(n.kernel), "Speed": times(n.speed)}))
	}
	if o := res.Yardstick.Outside; o != nil && o.Differs {
		add(say("cannot-outside", map[string]any{"Old": float64(o.Old), "New": float64(o.New), "Margin": 100 * outsideMargin}))
	}
	return out
}

// helloCannotTell is the reason absolute figures cannot be judged when any hello
// variant disagrees with the yardstick: the HTTP stack alone moved in a way the fixed
// work does not explain, and every variant pays that stack.
func helloCannotTell(hs []Hello, n norm) []CannotTell {
	if !n.on {
		return nil
	}
	var off []string
	for _, h := range hs {
		if !h.Agrees {
			off = append(off, fmt.Sprintf("%s %s", short(h.Variant), times(h.Ratio)))
		}
	}
	if len(off) == 0 {
		return nil
	}
	return []CannotTell{{Kind: Absolute, Reason: say("cannot-hello", map[string]any{"Hellos": strings.Join(off, ", "), "Speed": times(n.speed)})}}
}

// fewCannotTell is the reason the units in few cannot be judged: too few variants (or
// comparisons) to estimate how far one moves from one run to the next.
func fewCannotTell(kind Kind, few []string, what string) []CannotTell {
	if len(few) == 0 {
		return nil
	}
	return []CannotTell{{Kind: kind, Units: few, Reason: say("cannot-few", map[string]any{"Min": minSpreadVariants, "What": what})}}
}
