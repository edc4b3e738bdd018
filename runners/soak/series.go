package soak

import (
	"fmt"
	"math"
	"slices"
	"time"

	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Kind says how a series is judged.
type Kind string

const (
	// Memory (RSS, Go's live heap) grows when its 24-hour projection passes
	// MemoryGrowthPerDay of its post-warm-up median.
	Memory Kind = "memory"
	// Count (descriptors, threads, goroutines, connections, statements, cumulative
	// aborts) grows when it gains more than CountGrowthPerHour an hour.
	Count Kind = "count"
	// Level (p99, pool waits per second) grows when its 24-hour projection passes
	// LevelGrowthPerDay of its median, or of Floor when the median is below it.
	Level Kind = "level"
	// Achieved is a load's achieved rate, judged against the offered rate rather than by
	// a trend: short when it delivers less than MinAchieved of what was offered.
	Achieved Kind = "achieved"
	// Errors is a load's failed requests per window, judged by their share of all
	// requests: errors when above MaxErrorRate.
	Errors Kind = "errors"
)

// Thresholds of the verdicts: growth a service would feel within a day (memory by
// 10%, a level doubling), a count growing by one an hour, less than 95% of the offered
// rate achieved, more than 0.1% of requests failed.
const (
	MemoryGrowthPerDay = 0.10
	CountGrowthPerHour = 1.0
	LevelGrowthPerDay  = 1.0 // the level doubles within a day
	MinAchieved        = 0.95
	MaxErrorRate       = 0.001
)

// Resolutions: the least rise, over the judged part of the soak, that a series must
// show before its trend is projected at all. A short soak projects a few minutes over
// 24 hours, and a process's memory creeps by a few pages long after start (code paged
// in, the allocator settling): projected over a day, such a creep is a large leak, yet
// it stops (README.md, "Measured"). So memory must rise by MemoryResolution of its
// median within the soak, a count by at least CountResolution, a level by
// LevelResolution of its median (or floor). A 60-minute soak thus resolves memory
// growth from about 27% a day; 10% a day takes 2.4 hours.
const (
	MemoryResolution = 0.01
	CountResolution  = 1.0
	LevelResolution  = 0.25
)

// NoiseResolution: the rise must also be at least this many times the series' own
// scatter about its trend (1.4826 × the median absolute residual), so that a noisy
// series (Go's live heap between collections, a p99 window by window) is not called
// growing for a drift smaller than its noise.
const NoiseResolution = 2.0

// MinNoisySpan is the shortest judged window in which memory and levels (p99, pool
// waits) can grow. A Go or PHP process's RSS settles over tens of minutes (pages touched
// late, the allocator and the scavenger finding their level): a 5-minute soak of clean
// code saw Go's RSS rise in its last minutes by what projects to a leak, while the
// committed hour-long soak (reports/sample/soak) shows the same processes creeping far
// less once settled. And a p99 window by window is too noisy for a minute's trend: in
// simulation (TestCleanSeriesAreRarelyFlagged), 90-s soaks of clean code flagged a p99
// by chance. The figures are in README.md, "Measured". Shorter soaks still judge counts,
// which are exact; memory and levels are unresolved there.
const MinNoisySpan = 10 * time.Minute

// MinCountedSpan is MinNoisySpan for memory a runtime counts itself (Go's live heap
// after a collection, a PHP worker's memory_get_usage() between requests): no pages
// touched late, no allocator chunks, so it settles within the warm-up, and a runtime
// leak of 2 MB an hour is told within a 10-minute soak (README.md, "Measured").
const MinCountedSpan = 5 * time.Minute

// TrendConfidence is the confidence of the slope interval a growth needs over the
// judged window; LateConfidence that of its last half, whose half the points give a
// wider interval. A soak judges some 60 series at once: TestCleanSeriesAreRarelyFlagged
// simulates how often a clean soak flags one.
const (
	TrendConfidence = 0.99
	LateConfidence  = 0.95
)

// Verdicts of a trend, each named for what the numbers show; only Grows is flagged.
const (
	// Grows: the slope's interval is above 0 over the judged window and over its last
	// half, the rise passes the resolution, and the 24-hour projection the threshold.
	Grows = "grows"
	// Settling: it rose over the judged window, and the last half's slope is credibly
	// below the first half's (its interval lies under the first half's slope): a heap
	// or cache still filling, which stops. A longer soak tells.
	Settling = "settling"
	// Rising: it rose over the judged window, its last half's slope no longer excludes
	// 0, and is not credibly below the first half's either: a leak or settling, which
	// this duration cannot tell apart. The reason gives the duration that would.
	Rising = "rising, unresolved"
	// Creeps: the slope is above 0, but the rise over the window is under the resolution
	// a soak this short can tell from settling; it is not projected.
	Creeps = "creeps"
	// Slow: the slope is above 0, but its 24-hour projection stays under the threshold.
	Slow = "rises slowly"
	// Unresolved: it rose, but the judged window is too short (MinNoisySpan), or its last
	// half has too few samples, to tell growth from settling.
	Unresolved = "unresolved"
	// InFlight: a count rose, but with no load running it kept less than half the rise
	// (Series.RestBefore, RestAfter): statements or connections held by requests in
	// flight, which a queue at the end of a soak raises; a leak keeps what it took.
	InFlight = "in flight"
	// Falls: the slope's interval is below 0 (no projection: nothing falls for a day).
	Falls = "falls"
	// Flat: the slope's interval holds 0.
	Flat        = "flat"
	NotEnough   = "not enough samples"
	OK          = "ok"
	Short       = "short"
	ErrorsFound = "errors"
	Reached     = "reached" // a limit was reached, whatever the trend
)

// Point is one sample: T seconds after the soak started (after the capacity phase).
type Point struct {
	T     float64 `json:"t"`
	Value float64 `json:"value"`
}

// Limit is what a series runs into: max_prepared_stmt_count, ulimit -n,
// max_connections. Used is how much of it is taken at the last sample, in the limit's
// own terms (for descriptors of a process tree: the largest process's count, since the
// limit is per process).
type Limit struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Used  float64 `json:"used"`
}

// Series is one quantity of one role sampled over the soak.
type Series struct {
	Name  string  `json:"name"`  // stable id: rss, fds, prepared_stmt_count
	Label string  `json:"label"` // for people: "RSS (sum over processes)"
	Unit  string  `json:"unit"`  // bytes, count, s, req/s, per s
	Kind  Kind    `json:"kind"`
	Floor float64 `json:"floor,omitempty"` // Level: the smallest median the threshold is taken of
	Limit *Limit  `json:"limit,omitempty"`
	// Held: it counts what the database holds for its clients (heldByDatabase).
	Held   bool    `json:"held,omitempty"`
	Points []Point `json:"points"`
	// Offered is the rate asked for in each window (Achieved only), and Requests the
	// requests finished in each window (Errors only): what the verdict divides by.
	Offered  []Point `json:"offered,omitempty"`
	Requests []Point `json:"requests,omitempty"`
	// RestBefore and RestAfter are its values with no load running, a second before the
	// soak's load began and a second after it stopped (rest.go; nil in soaks before
	// them): a leak keeps what it took between the two, requests in flight do not.
	RestBefore *Point `json:"rest_before,omitempty"`
	RestAfter  *Point `json:"rest_after,omitempty"`
	// Verdict is set when the soak ends (and again by --report-only).
	Verdict *Verdict `json:"verdict,omitempty"`
}

// Add appends a sample.
func (s *Series) Add(t, v float64) { s.Points = append(s.Points, Point{T: t, Value: v}) }

// Verdict is the judgement of one series over the points after the warm-up.
type Verdict struct {
	Verdict string  `json:"verdict"`
	N       int     `json:"n"` // points judged
	Median  float64 `json:"median"`
	// Theil–Sen slope per second with its TrendConfidence interval (trend kinds only).
	Slope     float64 `json:"slope_per_s"`
	Lo        float64 `json:"lo_per_s"`
	Hi        float64 `json:"hi_per_s"`
	Intercept float64 `json:"intercept"`
	// PerDay is the slope projected over 24 hours; Threshold is what it must pass to grow.
	PerDay    float64 `json:"per_day"`
	Threshold float64 `json:"threshold_per_day"`
	// Ratio is achieved/offered (Achieved) or failed/requests (Errors).
	Ratio float64 `json:"ratio,omitempty"`
	// ToLimit is the time in seconds until the series reaches its limit at the measured
	// slope: set when it grows and has a limit (0 when already reached).
	ToLimit *float64 `json:"to_limit_s,omitempty"`
	Reason  string   `json:"reason"`
}

// Judge judges the points of s at or after warmup seconds.
func Judge(s *Series, warmup float64) Verdict {
	pts := after(s.Points, warmup)
	switch s.Kind {
	case Achieved:
		return judgeAchieved(pts, after(s.Offered, warmup))
	case Errors:
		return judgeErrors(pts, after(s.Requests, warmup))
	}
	v := Verdict{N: len(pts)}
	if len(pts) > 0 {
		v.Median = stats.Median(values(pts))
	}
	limitReached := s.Limit != nil && s.Limit.Value > 0 && s.Limit.Used >= s.Limit.Value
	tr, err := trend(s.exact(), pts)
	if err != nil || !tr.HasInterval() {
		v.Verdict, v.Reason = NotEnough, say("reason-not-enough", map[string]any{"N": len(pts), "Conf": TrendConfidence})
		if limitReached {
			v.Verdict, v.Reason = Reached, reachedReason(s.Limit, v.Reason)
		}
		return v
	}
	v.Slope, v.Lo, v.Hi, v.Intercept = tr.Slope, tr.Lo, tr.Hi, tr.Intercept
	v.PerDay = tr.Slope * 86400
	v.Threshold = threshold(s, v.Median)
	u := s.Unit
	span := pts[len(pts)-1].T - pts[0].T
	rise, least := tr.Slope*span, max(resolution(s, v.Median), NoiseResolution*scatter(pts, tr))
	judged := time.Duration(span * float64(time.Second)).Round(time.Second)
	// what the reasons say (words.tmpl), each filled from the fit
	lo, hi := perHour(tr.Lo, u), perHour(tr.Hi, u)
	interval := say("slope-interval", map[string]any{"Slope": perHour(tr.Slope, u), "Conf": TrendConfidence, "Lo": lo, "Hi": hi})
	data := map[string]any{"Interval": interval, "Rise": FormatValue(rise, u), "Judged": judged, "Slope": perHour(tr.Slope, u),
		"PerDay": signedValue(v.PerDay, u), "Threshold": FormatValue(v.Threshold, u)}
	switch {
	case tr.Lo <= 0 && tr.Hi >= 0:
		v.Verdict = Flat
		v.Reason = say("reason-flat", map[string]any{"Conf": TrendConfidence, "Lo": lo, "Hi": hi})
	case tr.Hi < 0:
		v.Verdict = Falls
		v.Reason = say("reason-falls", data)
	case rise < least:
		v.Verdict = Creeps
		data["Least"] = FormatValue(least, u)
		v.Reason = say("reason-creeps", data)
	case s.Kind != Count && span < s.minSpan().Seconds():
		v.Verdict = Unresolved
		data["NoisySpan"] = s.minSpan()
		v.Reason = say("reason-unresolved-span", data)
	case v.PerDay <= v.Threshold:
		v.Verdict = Slow
		v.Reason = say("reason-slow", data)
	default:
		v.Verdict = Grows
		v.Reason = say("reason-grows", data)
		switch late, ok := lateTrend(s.exact(), pts); {
		case !ok:
			v.Verdict = Unresolved
			v.Reason = say("reason-unresolved-late", data)
		case s.Kind == Count && s.RestBefore != nil && s.RestAfter != nil && s.RestAfter.Value-s.RestBefore.Value < rise/2:
			v.Verdict = InFlight
			data["Before"], data["After"] = FormatValue(s.RestBefore.Value, u), FormatValue(s.RestAfter.Value, u)
			v.Reason = say("reason-in-flight", data)
		case late.Lo <= 0: // after in flight: a count that fell back at rest is not rising
			v.Verdict, v.Reason = lateVerdict(s, pts, tr, late, data)
		}
	}
	switch {
	case limitReached:
		zero := 0.0
		v.ToLimit = &zero
		v.Verdict = Reached
		v.Reason = reachedReason(s.Limit, v.Reason)
	case v.Verdict == Grows && s.Limit != nil && s.Limit.Value > 0:
		left := (s.Limit.Value - s.Limit.Used) / tr.Slope
		v.ToLimit = &left
	}
	return v
}

// exact says the series is fitted with Sen's own interval: counts, and memory a runtime
// counts itself (Counted).
func (s *Series) exact() bool { return s.Kind == Count || s.counted() }

// counted says the series is memory a runtime counts itself (Go's live heap, a PHP
// worker's memory_get_usage(), a backend's private memory; record.go's catalogue):
// judged over MinCountedSpan, and with Sen's own interval as counts are, since a leak
// in it is a staircase of exact steps, which the correction for samples that wander
// together would read as one sample.
func (s *Series) counted() bool { return specs[s.Name].counted }

// minSpan is the shortest judged window in which a memory or level series can grow.
func (s *Series) minSpan() time.Duration {
	if s.counted() {
		return MinCountedSpan
	}
	return MinNoisySpan
}

// reachedReason puts the limit a series reached before the reason its trend gives.
func reachedReason(l *Limit, reason string) string {
	return say("reason-reached", map[string]any{"Name": l.Name, "Used": l.Used, "Value": l.Value, "Reason": reason})
}

// threshold is the 24-hour growth a series must pass to grow.
func threshold(s *Series, median float64) float64 {
	return bySize(s, median, MemoryGrowthPerDay, LevelGrowthPerDay, CountGrowthPerHour*24)
}

// bySize is what threshold and resolution share: memory's part of the median, a
// level's part of its median or its floor, whichever is larger, and count itself for a
// count, whose limits are absolute.
func bySize(s *Series, median, memory, level, count float64) float64 {
	switch s.Kind {
	case Memory:
		return memory * math.Abs(median)
	case Level:
		return level * math.Max(math.Abs(median), s.Floor)
	default:
		return count
	}
}

// scatter is the robust spread of the points about their trend.
func scatter(pts []Point, tr stats.Trend) float64 {
	r := make([]float64, len(pts))
	for i, p := range pts {
		r[i] = p.Value - tr.Intercept - tr.Slope*p.T
	}
	return stats.RobustSD(r)
}

// resolution is the least rise over the judged span that a series must show to grow.
func resolution(s *Series, median float64) float64 {
	return bySize(s, median, MemoryResolution, LevelResolution, CountResolution)
}

// lateTrend fits the last half of the points (by time), at LateConfidence: a series
// that still grows at the end of the soak grows there too. ok is false when the half
// is too short for an interval.
func lateTrend(exact bool, pts []Point) (stats.Trend, bool) {
	mid := (pts[0].T + pts[len(pts)-1].T) / 2
	tr, err := trendAt(exact, after(pts, mid), LateConfidence)
	return tr, err == nil && tr.HasInterval()
}

// lateVerdict judges a rise whose last half no longer shows growth: settling when the
// last half's slope is credibly below the first half's, else rising and unresolved,
// with the judged span that would resolve it. data is Judge's for the reasons: the
// rise, the span judged and the slope.
func lateVerdict(s *Series, pts []Point, tr, late stats.Trend, data map[string]any) (string, string) {
	u := s.Unit
	data["LateLo"], data["LateHi"] = perHour(late.Lo, u), perHour(late.Hi, u)
	if early, ok := earlyTrend(s.exact(), pts); ok && late.Hi < early.Slope {
		data["Early"] = perHour(early.Slope, u)
		return Settling, say("reason-settling", data)
	}
	data["Resolving"] = resolvingSpan(data["Judged"].(time.Duration), tr.Slope, late)
	return Rising, say("reason-rising", data)
}

// resolvingSpan is the judged span over which the last half's interval would be half
// the slope wide on each side, so that it excludes 0 with room if the series kept
// rising at slope: with samples at a fixed interval, a slope's interval narrows as the
// span to the power 3/2.
func resolvingSpan(judged time.Duration, slope float64, late stats.Trend) time.Duration {
	half := (late.Hi - late.Lo) / 2
	if slope <= 0 || half <= 0 {
		return 2 * judged
	}
	grow := math.Max(math.Pow(2*half/slope, 2.0/3), 1.25)
	return (time.Duration(float64(judged)*grow) + time.Minute - 1).Truncate(time.Minute)
}

// earlyTrend fits the first half of the points (by time), at LateConfidence.
func earlyTrend(exact bool, pts []Point) (stats.Trend, bool) {
	mid := (pts[0].T + pts[len(pts)-1].T) / 2
	i := slices.IndexFunc(pts, func(p Point) bool { return p.T > mid })
	if i < 0 {
		i = len(pts)
	}
	tr, err := trendAt(exact, pts[:i], LateConfidence)
	return tr, err == nil && tr.HasInterval()
}

// trend fits Theil–Sen to the points, t in seconds.
func trend(exact bool, pts []Point) (stats.Trend, error) { return trendAt(exact, pts, TrendConfidence) }

// trendAt fits memory and levels, which wander, with the interval widened for their
// autocorrelation (stats.TheilSenSerial); counts, and memory a runtime counts itself,
// are exact (exact), and a leak's staircase of them, sampled with a little jitter, would
// read as autocorrelated: Sen's own interval.
func trendAt(exact bool, pts []Point, conf float64) (stats.Trend, error) {
	if len(pts) < 2 {
		return stats.Trend{}, fmt.Errorf("%d points", len(pts))
	}
	x, y := make([]float64, len(pts)), make([]float64, len(pts))
	for i, p := range pts {
		x[i], y[i] = p.T, p.Value
	}
	if exact {
		return stats.TheilSenAt(x, y, conf)
	}
	return stats.TheilSenSerial(x, y, conf)
}

// judgeAchieved compares what was delivered with what was offered, window by window
// summed: a rate is a fraction of the offered load, not a trend.
func judgeAchieved(achieved, offered []Point) Verdict {
	v, got, want, ok := windowShare(achieved, offered)
	if !ok {
		return v
	}
	v.Ratio = got / want
	if v.Ratio < MinAchieved {
		v.Verdict = Short
		v.Reason = say("reason-short", map[string]any{"AchievedPct": 100 * v.Ratio, "MinAchievedPct": 100 * MinAchieved})
		return v
	}
	v.Verdict, v.Reason = OK, say("reason-achieved", map[string]any{"AchievedPct": 100 * v.Ratio})
	return v
}

// judgeErrors divides the failed requests by all requests after the warm-up.
func judgeErrors(failed, requests []Point) Verdict {
	v, bad, all, ok := windowShare(failed, requests)
	if !ok {
		return v
	}
	if all > 0 {
		v.Ratio = bad / all
	}
	data := map[string]any{"Failed": bad, "Requests": all, "MaxErrorPct": 100 * MaxErrorRate}
	if all == 0 || v.Ratio > MaxErrorRate {
		v.Verdict, data["Over"] = ErrorsFound, true
		v.Reason = say("reason-errors", data)
		return v
	}
	v.Verdict, v.Reason = OK, say("reason-errors", data)
	return v
}

// windowShare starts the verdict on part as a share of whole, which judgeAchieved and
// judgeErrors finish: N and the median of part, and both summed over the windows after
// the warm-up. ok is false, and v says NotEnough, when there is no window or the two
// series disagree.
func windowShare(part, whole []Point) (v Verdict, p, w float64, ok bool) {
	v = Verdict{N: len(part)}
	if len(part) == 0 || len(whole) != len(part) {
		v.Verdict, v.Reason = NotEnough, say("reason-no-window", nil)
		return v, 0, 0, false
	}
	for i := range part {
		p += part[i].Value
		w += whole[i].Value
	}
	v.Median = stats.Median(values(part))
	return v, p, w, true
}

// Flagged says whether a verdict asks for attention.
func (v Verdict) Flagged() bool {
	return v.Verdict == Grows || v.Verdict == Reached || v.Verdict == Short || v.Verdict == ErrorsFound
}

func after(pts []Point, t float64) []Point {
	i := slices.IndexFunc(pts, func(p Point) bool { return p.T >= t })
	if i < 0 {
		return nil
	}
	return pts[i:]
}

func values(pts []Point) []float64 {
	out := make([]float64, len(pts))
	for i, p := range pts {
		out[i] = p.Value
	}
	return out
}

func perHour(perSecond float64, unit string) string {
	return signedValue(perSecond*3600, unit) + "/h"
}

// signedValue is FormatValue with a "+" before a value of 0 or more.
func signedValue(x float64, unit string) string { return units.PlusSign(x, FormatValue(x, unit)) }

// FormatValue prints x in unit for people: bytes in MiB, seconds in ms.
func FormatValue(x float64, unit string) string {
	switch unit {
	case "bytes":
		return fmtNum(x/(1<<20)) + " MiB"
	case "s":
		return fmtNum(x*1e3) + " ms"
	case "count", "":
		return fmtNum(x)
	default:
		return fmtNum(x) + " " + unit
	}
}

// fmtNum prints a number with about three significant digits, without exponent
// notation for the sizes a soak sees.
func fmtNum(x float64) string {
	a := math.Abs(x)
	switch {
	case math.IsInf(x, 0) || math.IsNaN(x):
		return fmt.Sprint(x)
	case a == 0:
		return "0"
	case a >= 1e9:
		return fmt.Sprintf("%.3g", x)
	case a >= 100:
		return fmt.Sprintf("%.0f", x)
	case a >= 1:
		return fmt.Sprintf("%.3g", x)
	default:
		return fmt.Sprintf("%.2g", x)
	}
}
