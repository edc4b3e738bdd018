// Package compare judges two runs: did a new ORM, driver or setting make the same
// variants slower? Runs on two machines of the same kind can differ in speed by far more
// than any change a comparison looks for (README.md gives a measured case), so it first
// says whether the environments match and how fast each run's machine was
// (the yardstick: fixed CPU work timed during the run, package yardstick), then gives
// verdicts of three kinds, each labelled with its kind:
//
//   - within-run ratios (each layer against raw, interpolate against prepare,
//     per-request against persistent, …): ratios measured inside one run cancel the
//     machine's speed, so they are compared between runs as they are;
//   - deterministic counts (MySQL commands, round trips, bytes to and from the database,
//     allocations, system calls per request): they do not depend on speed, so a change
//     beyond a count's exactness is a change, whatever the noise threshold;
//   - absolute figures (QPS, latency, CPU per request): judged relative to the
//     yardstick, so a difference the machine explains is never called regressed.
//
// The verdict rule, README.md has the whole method: a change is improved or regressed
// only when its whole 95% interval lies beyond the noise threshold (criterion's rule);
// intervals of two independent estimates combine by interval arithmetic (the bounds of
// a quotient are the quotients of the bounds), which is conservative.
package compare

import (
	"fmt"
	"slices"
	"time"

	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// Kind names the three kinds of verdict.
type Kind string

const (
	Ratio    Kind = "within-run ratio"
	Count    Kind = "count"
	Absolute Kind = "absolute"
)

// Kinds in the order the output gives them.
var Kinds = []Kind{Ratio, Count, Absolute}

// DefaultMargin is the smallest change that matters unless --margin says otherwise, in
// compare and in ab: changes up to 3% are noise.
const DefaultMargin = 0.03

// Outcome is a row's outcome.
type Outcome string

const (
	Improved  Outcome = "improved"
	Regressed Outcome = "regressed"
	Unchanged Outcome = "unchanged"
	Changed   Outcome = "changed" // a deterministic count moved beyond its exactness
	// CannotTellVerdict: the evidence cannot judge the row (Result.CannotTell says why).
	CannotTellVerdict Outcome = "cannot tell"
)

// Labels a row may carry beside its verdict.
const (
	// EnvironmentChanged: an absolute figure judged relative to a yardstick that moved
	// beyond the noise threshold.
	EnvironmentChanged = "environment changed"
	// NotNormalised: an absolute figure compared as it is, because a run has no yardstick.
	NotNormalised = "not normalised"
	// Unpaired: a within-run ratio of a run without paired comparisons, estimated from
	// the two variants' slices as independent samples.
	Unpaired = "unpaired"
	// LatencyApprox: a latency normalised as if it scaled with the machine's speed, which
	// it does only in part.
	LatencyApprox = "latency not purely CPU-bound"
	// WithinSpread: an absolute figure or a within-run ratio whose change lies beyond
	// the noise on its own runs' intervals, but not once the between-run spread is added
	// (spread.go).
	WithinSpread = "within the between-run spread"
	// HelloNotGated: a hello variant's figure, the yardstick's check rather than code
	// under test; shown, never gated.
	HelloNotGated = "hello, not gated"
)

// Options of a comparison.
type Options struct {
	// Margin is the threshold below which a change is noise, a fraction (0.03 = 3%).
	Margin float64
	// OldLabel and NewLabel name the runs in the output (a directory, "baseline main").
	OldLabel, NewLabel string
}

// Result is a whole comparison, as `dbbench compare` prints it and as --format json
// writes it (the field names are stable).
type Result struct {
	Old         RunInfo     `json:"old"`
	New         RunInfo     `json:"new"`
	Margin      float64     `json:"noise"`
	Environment Environment `json:"environment"`
	Yardstick   Yardstick   `json:"yardstick"`
	// Spread is the between-run spread of each absolute unit (spread.go): the 95%
	// half-width added to every interval of that unit, a fraction (0.09 = ±9%).
	Spread map[string]float64 `json:"between_run_spread,omitempty"`
	// RatioSpread is the same for the within-run ratios, by unit (ratios.go).
	RatioSpread map[string]float64 `json:"ratio_between_run_spread,omitempty"`
	Summary     []KindSummary      `json:"summary"`
	Largest     []Row              `json:"largest"` // up to 10 rows with a verdict other than unchanged, largest first
	Rows        []Row              `json:"rows"`    // every row, by kind, then in the old run's variant order
	OnlyOld     []string           `json:"only_old,omitempty"`
	OnlyNew     []string           `json:"only_new,omitempty"`
	Invalid     []string           `json:"invalid,omitempty"` // "key: reason (old|new run)"
	Notes       []string           `json:"notes,omitempty"`   // what could not be compared or normalised, and why
	// CannotTell lists the parts the evidence cannot judge, and why (canttell.go): only
	// those that cover a row that could count for the gate.
	CannotTell []CannotTell `json:"cannot_tell,omitempty"`
	Gate       Gate         `json:"gate"`
}

// RunInfo identifies a run.
type RunInfo struct {
	Label     string         `json:"label"`
	Started   time.Time      `json:"started"`
	Status    results.Status `json:"status"`
	Preset    string         `json:"preset"`
	Commit    string         `json:"commit,omitempty"`
	Yardstick bool           `json:"yardstick"` // the run timed the yardstick
	Paired    bool           `json:"paired"`    // the run measured its comparisons as pairs
}

// Row is one variant's (or comparison's) change in one metric.
type Row struct {
	Kind    Kind   `json:"kind"`
	Variant string `json:"variant"` // variant key; for a ratio, its Other side
	// A ratio's question and reference side (the variant it is compared with).
	Question string `json:"question,omitempty"`
	Versus   string `json:"versus,omitempty"`
	Unit     string `json:"unit"`
	// Old and New are the medians (absolute, count) or the ratio estimates (ratio).
	Old Num `json:"old"`
	New Num `json:"new"`
	// A ratio's estimates with their intervals.
	OldRatio *stats.Estimate `json:"old_ratio,omitempty"`
	NewRatio *stats.Estimate `json:"new_ratio,omitempty"`
	// AsIs is the change as measured; Judged the one the verdict rests on (for absolute
	// figures, relative to the yardstick; for the others, AsIs).
	AsIs    Change  `json:"as_is"`
	Judged  Change  `json:"judged"`
	Verdict Outcome `json:"verdict"`
	// Explained: an absolute figure that changed beyond the noise as it is, and not
	// relative to the yardstick: the machine explains it.
	Explained bool     `json:"explained_by_yardstick,omitempty"`
	Labels    []string `json:"labels,omitempty"`
	Gate      bool     `json:"gate"` // counts for --fail-on regression
	Warnings  []string `json:"warnings,omitempty"`
	hello     bool     // an absolute figure of a hello variant: never gated
}

// KindSummary counts one kind's verdicts.
type KindSummary struct {
	Kind      Kind `json:"kind"`
	Improved  int  `json:"improved"`
	Regressed int  `json:"regressed"`
	Unchanged int  `json:"unchanged"`
	// Counts: Changed = Up + Down.
	Changed int `json:"changed"`
	Up      int `json:"up"`
	Down    int `json:"down"`
	// Absolute figures: how many changed as they are but not relative to the yardstick,
	// and how many beyond the noise on their runs' intervals but within the between-run
	// spread.
	Explained    int `json:"explained_by_yardstick"`
	WithinSpread int `json:"within_spread"`
	// CannotTell: rows the evidence cannot judge.
	CannotTell int `json:"cannot_tell"`
}

// Gate is what `--fail-on regression` fails on: regressions that survive normalisation
// (within-run ratios, and absolute figures of variants with a database) and changes of
// deterministic counts, among the rows that could be judged.
type Gate struct {
	Regressions  int  `json:"regressions"`
	CountChanges int  `json:"count_changes"`
	Fails        bool `json:"fails"`
	// CannotTell: some rows that could count for the gate could not be judged
	// (Result.CannotTell says why); --fail-on regression then exits with status 4
	// unless Fails.
	CannotTell bool `json:"cannot_tell"`
	// NotGated: a hello variant's own absolute regressions (HelloNotGated), shown and
	// never gated.
	NotGated int `json:"not_gated"`
	// Variants are the keys of the variants those rows belong to, in row order.
	Variants []string `json:"variants,omitempty"`
}

// Compare judges new against old. Only variants valid in both runs are compared.
func Compare(old, new *results.Run, o Options) (*Result, error) {
	if !(o.Margin >= 0 && o.Margin < 1) {
		return nil, fmt.Errorf("compare: margin %v: want a fraction in [0, 1), e.g. 0.03 for 3%%", o.Margin)
	}
	res := &Result{Old: info(old, o.OldLabel), New: info(new, o.NewLabel), Margin: o.Margin}
	res.Environment = environment(old, new)
	for _, note := range []string{topologyNote(old, new), loadNote(res.Environment.Settings)} {
		if note != "" {
			res.Notes = append(res.Notes, note)
		}
	}
	pair := match(old, new, res)
	if len(pair.keys) == 0 {
		res.Notes = append(res.Notes, "no variant is valid and measured in both runs: there is nothing to compare")
	}
	m := machine(old, new, o.Margin, res)
	res.Yardstick.Outside = outsideCPU(pair, cores(new))
	res.Rows = append(res.Rows, ratioRows(old, new, pair, o.Margin, res)...)
	res.Rows = append(res.Rows, countRows(old, new, pair, res)...)
	res.Rows = append(res.Rows, absoluteRows(pair, m, o.Margin, res)...)
	res.summarise()
	return res, nil
}

func info(r *results.Run, label string) RunInfo {
	return RunInfo{
		Label: label, Started: r.Started, Status: r.Status, Preset: r.Settings.Preset,
		Commit: r.Environment["dbbench-commit"], Yardstick: r.Yardstick != nil && len(r.Yardstick.Readings) > 0,
		Paired: len(r.Comparisons) > 0,
	}
}

// pairing is the variants valid in both runs, in the old run's order, by key.
type pairing struct {
	keys     []string
	old, new map[string]*results.Variant
}

// match finds the variants valid in both runs and lists the others.
func match(old, new *results.Run, res *Result) pairing {
	p := pairing{old: valid(old, "old", res), new: valid(new, "new", res)}
	for _, v := range old.Variants {
		if p.old[v.Key] == nil {
			continue
		}
		if p.new[v.Key] == nil {
			res.OnlyOld = append(res.OnlyOld, v.Key)
			continue
		}
		p.keys = append(p.keys, v.Key)
	}
	for _, v := range new.Variants {
		if p.new[v.Key] != nil && p.old[v.Key] == nil {
			res.OnlyNew = append(res.OnlyNew, v.Key)
		}
	}
	// A variant valid on one side and invalid on the other is listed as invalid, not as
	// only in one run.
	invalid := map[string]bool{}
	for _, r := range []*results.Run{old, new} {
		for _, v := range r.Variants {
			if !v.Valid {
				invalid[v.Key] = true
			}
		}
	}
	res.OnlyOld = slices.DeleteFunc(res.OnlyOld, func(k string) bool { return invalid[k] })
	res.OnlyNew = slices.DeleteFunc(res.OnlyNew, func(k string) bool { return invalid[k] })
	return p
}

// valid returns r's variants that are valid and measured, and lists the invalid ones.
func valid(r *results.Run, side string, res *Result) map[string]*results.Variant {
	out := map[string]*results.Variant{}
	for _, v := range r.Variants {
		switch {
		case !v.Valid:
			reason := v.InvalidReason
			if reason == "" {
				reason = "invalid"
			}
			res.Invalid = append(res.Invalid, fmt.Sprintf("%s: %s (%s run)", v.Key, reason, side))
		case len(v.Reps) > 0:
			out[v.Key] = v
		}
	}
	return out
}

// values returns v's figures in unit over its repetitions, leaving out those it lacks.
func values(v *results.Variant, unit string) []float64 {
	var out []float64
	for _, rep := range v.Reps {
		if x, ok := v.Value(rep, unit); ok {
			out = append(out, x)
		}
	}
	return out
}
