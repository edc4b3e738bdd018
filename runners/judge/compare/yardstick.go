package compare

// A run's yardstick read back (runners/measure/yardstick takes it): how fast each
// run's machine was, and the ratio of two runs' speeds that the absolute rows are
// normalised by.

import (
	"errors"
	"fmt"

	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// errNoYardstick is returned when a run has no yardstick trials.
var errNoYardstick = errors.New("no yardstick")

// yardstickTrials returns every trial of y's readings, in order; errNoYardstick when there are none.
func yardstickTrials(y *results.Yardstick) ([]float64, error) {
	return collect(y, func(r *results.Reading) []float64 { return r.Trials })
}

// kernelTrials returns every kernel trial of y's readings, in order; errNoYardstick when
// there are none.
func kernelTrials(y *results.Yardstick) ([]float64, error) {
	return collect(y, func(r *results.Reading) []float64 { return r.Kernel })
}

func collect(y *results.Yardstick, part func(*results.Reading) []float64) ([]float64, error) {
	if y == nil {
		return nil, errNoYardstick
	}
	var out []float64
	for _, r := range y.Readings {
		out = append(out, part(r)...)
	}
	if len(out) == 0 {
		return nil, errNoYardstick
	}
	return out, nil
}

// yardstickSummary is the median time of a trial over all of y's readings, with benchstat's 95%
// interval of the median (stats.Summarize), in seconds.
func yardstickSummary(y *results.Yardstick) (stats.Summary, error) {
	trials, err := yardstickTrials(y)
	if err != nil {
		return stats.Summary{}, err
	}
	return stats.Summarize(trials, "sec/op")
}

// yardstickRatio is how fast new's machine was relative to old's: old trial time over new trial
// time (above 1: the new machine is faster), with a 95% interval. A run's speed is its
// trials pooled over all its readings (start, between languages, end), the same span
// of time as its figures; the estimate is stats.TwoSampleRatio of the trial times, inverted.
// Pooling treats the trials as exchangeable: a machine whose speed drifts during a run
// widens the interval through the spread of its trials, but a drift between readings
// counts as many trials' worth of evidence, not as few readings'. errNoYardstick (wrapped)
// when either run has no trials; an error when the two measured different work.
func yardstickRatio(old, new *results.Yardstick) (stats.Estimate, error) {
	return ratio(old, new, yardstickTrials, func(y *results.Yardstick) string { return y.Work })
}

// kernelRatio is yardstickRatio for the kernel's part (KernelWork): how fast new's kernel
// carried a loopback round trip relative to old's. errNoYardstick (wrapped) when either run
// lacks kernel trials.
func kernelRatio(old, new *results.Yardstick) (stats.Estimate, error) {
	return ratio(old, new, kernelTrials, func(y *results.Yardstick) string { return y.KernelWork })
}

func ratio(old, new *results.Yardstick, trials func(*results.Yardstick) ([]float64, error), work func(*results.Yardstick) string) (stats.Estimate, error) {
	to, err := trials(old)
	if err != nil {
		return stats.Estimate{}, fmt.Errorf("old run: %w", err)
	}
	tn, err := trials(new)
	if err != nil {
		return stats.Estimate{}, fmt.Errorf("new run: %w", err)
	}
	if work(old) != work(new) {
		return stats.Estimate{}, fmt.Errorf("the runs timed different work (%q, %q): their yardsticks are not comparable", work(old), work(new))
	}
	e, err := stats.TwoSampleRatio(to, tn) // new time / old time
	if err != nil {
		return stats.Estimate{}, fmt.Errorf("yardstick trials: %w", err)
	}
	if !e.HasInterval() {
		return e.Inverse(), fewTrials{len(to), len(tn)}
	}
	return e.Inverse(), nil
}

// fewTrials is the error of a yardstick with too few trials on a side for an interval.
type fewTrials struct{ old, new int }

func (f fewTrials) Error() string {
	return fmt.Sprintf("%d and %d trials, too few for an interval", f.old, f.new)
}
