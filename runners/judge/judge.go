// Package judge computes, once, every figure a run's page shows: each variant's
// summaries, each comparison's estimates and what their intervals decide, the pools
// the model sizes, a revision's cost, and the machine's drift by round and by the
// yardstick. The commands judge a run when it ends (or on `dbbench report`) and hand
// the result to package report, which only formats it: two outputs cannot judge the
// same pairs two ways, and a page can be drawn without redoing the statistics. The same
// Run is written to judgement.json beside results.json (stored.go), for tools.
package judge

import (
	"bytes"
	"fmt"
	"path/filepath"

	"dbbench/runners/judge/poolsize"
	"dbbench/runners/judge/revcost"
	"dbbench/runners/results"
	"dbbench/runners/results/benchfile"
	"dbbench/runners/stats"
)

// Run is a run's results with what its page shows computed from them.
type Run struct {
	Results *results.Run
	// Valid are the valid variants with slices measured; Invalid those not valid, in
	// the run's order.
	Valid, Invalid []*results.Variant
	// Summaries are each valid variant's slices summarized per unit (median and
	// benchstat's 95% interval), read back from the bench.txt lines benchstat reads, so
	// that the report and benchstat agree.
	Summaries map[benchfile.Key]stats.Summary
	// Comparisons are the run's paired comparisons judged, by comparison.
	Comparisons map[*results.Comparison]*Comparison
	// Unpaired are the question pairs of a run measured without pairs (before pairing),
	// judged from each side's median.
	Unpaired []*Unpaired
	// Pools is the fourth answer's sizing; nil when the run has no need or no link.
	Pools *Pools
	// Revision is a run of two revisions' answer (dbbench ab); nil otherwise.
	Revision *revcost.Answer
	// Rounds are the machine's pace per round of a run measured in rounds.
	Rounds []Round
	// Yardstick is the median of the yardstick's trials at each reading.
	Yardstick []Reading
}

// Of judges r.
func Of(r *results.Run) (*Run, error) {
	j := &Run{Results: r, Comparisons: map[*results.Comparison]*Comparison{}}
	for _, v := range r.Variants {
		switch {
		case !v.Valid:
			j.Invalid = append(j.Invalid, v)
		case len(v.Reps) > 0:
			j.Valid = append(j.Valid, v)
		}
	}
	samples, err := j.summarize()
	if err != nil {
		return nil, err
	}
	j.compare(samples)
	j.Pools = poolsOf(r, j.Valid)
	if r.AB != nil {
		a, err := revcost.Of(r)
		if err != nil {
			return nil, fmt.Errorf("judge: %w", err)
		}
		j.Revision = a
	}
	j.Rounds = rounds(r)
	j.Yardstick = readings(r.Yardstick)
	return j, nil
}

// File judges the run whose results.json is in dir.
func File(dir string) (*Run, error) {
	r, err := results.Read(filepath.Join(dir, "results.json"))
	if err != nil {
		return nil, err
	}
	return Of(r)
}

// summarize fills Summaries from the bench.txt lines of the run, and returns them.
func (j *Run) summarize() (*benchfile.File, error) {
	txt, err := benchfile.FromRun(j.Results)
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	f, err := benchfile.Read(bytes.NewReader(txt), "results.json")
	if err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	j.Summaries = map[benchfile.Key]stats.Summary{}
	for k, xs := range f.Samples {
		if len(xs) == 0 {
			continue
		}
		s, err := stats.Summarize(xs, k.Unit)
		if err != nil {
			continue // values were checked when bench.txt was written
		}
		j.Summaries[k] = s
	}
	return f, nil
}

// Summary is v's summary in unit; ok is false when the unit was not measured.
func (j *Run) Summary(v *results.Variant, unit string) (stats.Summary, bool) {
	if j == nil { // nothing judged: nothing measured
		return stats.Summary{}, false
	}
	s, ok := j.Summaries[benchfile.Key{Name: v.Name, Unit: unit}]
	return s, ok
}

// Pools is every valid persistent variant that reads the database sized for the run's
// need.
type Pools struct {
	Need  poolsize.Need
	Sized []Sized
}

// Sized is one variant's pool: its hold as measured, the pool the model sizes for the
// need, and, for a variant through a transaction pooler, the pooler's own pool.
type Sized struct {
	Variant *results.Variant
	Hold    poolsize.Hold
	Advice  poolsize.Advice
	// Pooler is the pooler's pool for every instance's rate together
	// (poolsize.ThroughPooler); ok false without a measurement.
	Pooler   poolsize.Advice
	PoolerOK bool
}
