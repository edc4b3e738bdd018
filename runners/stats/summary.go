// Package stats summarizes and compares repeated measurements the way benchstat does
// (golang.org/x/perf/benchmath: median with a 95% confidence interval, Mann-Whitney U
// test at alpha 0.05), and adds a criterion-style change interval; runners/judge/findings
// judges intervals.
//
// Reports built on this package print the same centers, intervals and `~` as
// `benchstat bench.txt` prints for the same samples.
//
// It also estimates the ratio of a comparison measured as pairs (PairedRatio) or as two
// independent samples (TwoSampleRatio) and the trend of a series (TheilSen); README.md
// lists every method with its use and reference. The queue that sizes pools is
// runners/judge/poolsize/queue.go.
package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

// Confidence is the level of every interval here, benchstat's default.
const Confidence = 0.95

// Alpha is the significance level of comparisons, benchstat's default.
const Alpha = 0.05

// thresholds is benchmath.DefaultThresholds (alpha 0.05), as benchstat uses it.
var thresholds = benchmath.DefaultThresholds

// Summary is the center and confidence interval of one sample.
type Summary struct {
	Unit   string
	N      int
	Center float64 // median; for exact units, the most common value
	// Lo and Hi bound the confidence interval. They are -Inf and +Inf when the sample is
	// too small for an interval at this level; Warnings then says how many are needed.
	Lo, Hi     float64
	Confidence float64  // actual level of [Lo, Hi], >= Confidence
	Warnings   []string // to be shown next to the number
}

// Summarize computes the median and 95% confidence interval of values in unit, with
// benchstat's method: AssumeNothing (or AssumeExact for Exact units). values is not
// modified; no values is an error.
func Summarize(values []float64, unit string) (Summary, error) {
	sample, err := newSample(values, unit)
	if err != nil {
		return Summary{}, err
	}
	return summarize(sample, unit), nil
}

func summarize(sample *benchmath.Sample, unit string) Summary {
	s := assumption(unit).Summary(sample, Confidence)
	return Summary{
		Unit:       unit,
		N:          len(sample.Values),
		Center:     s.Center,
		Lo:         s.Lo,
		Hi:         s.Hi,
		Confidence: s.Confidence,
		Warnings:   messages(s.Warnings),
	}
}

// HasInterval reports whether the sample was large enough for a finite interval.
func (s Summary) HasInterval() bool { return !math.IsInf(s.Lo, 0) && !math.IsInf(s.Hi, 0) }

// String formats the summary as benchstat does, "12.35k ± 2%", followed by any warning
// in parentheses, so a too-small sample says so where its number stands.
func (s Summary) String() string {
	b := benchmath.Summary{Center: s.Center, Lo: s.Lo, Hi: s.Hi}
	out := benchunit.Scale(s.Center, benchunit.ClassOf(s.Unit)) + " ± " + b.PctRangeString()
	if len(s.Warnings) > 0 {
		out += " (" + strings.Join(s.Warnings, "; ") + ")"
	}
	return out
}

// newSample checks values and copies them into a benchmath sample (which sorts in place).
func newSample(values []float64, unit string) (*benchmath.Sample, error) {
	if unit == "" {
		return nil, errors.New("sample has no unit")
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("%s: empty sample", unit)
	}
	for i, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%s: value %d is %v, want a finite number", unit, i+1, v)
		}
	}
	return benchmath.NewSample(slices.Clone(values), &thresholds), nil
}

func messages(errs []error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}
