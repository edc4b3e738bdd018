package soak

import "dbbench/runners/stats"

// MinOfOthers: with at least MinLoadsCompared variants soaked at once, a load short of
// MinAchieved is flagged only when it also achieved less than this share of the median
// load's ratio. The variants share the machine, so when the machine gives less than it
// did while the capacities were measured (a VM whose speed wanders), every load falls
// short together, and no clean variant falls far below the median load's ratio
// (README.md, "Measured"). A target that cannot keep its own rate falls behind the others.
const (
	MinOfOthers      = 0.85
	MinLoadsCompared = 3
)

// ShortWithOthers: a load short of its rate while the others were short alike: the
// machine gave every variant less than planned. Not flagged; the report says so.
const ShortWithOthers = "short with the others"

// medianLoad is the median of the loads' achieved/offered ratios, and the achieved
// series judged; ok is false with fewer than MinLoadsCompared.
func (f *File) medianLoad() (median float64, achieved []*Series, ok bool) {
	var ratios []float64
	for _, v := range f.Variants {
		s := v.find("achieved")
		if s == nil || s.Verdict == nil {
			continue
		}
		switch s.Verdict.Verdict {
		case OK, Short, ShortWithOthers:
			ratios, achieved = append(ratios, s.Verdict.Ratio), append(achieved, s)
		}
	}
	if len(ratios) < MinLoadsCompared {
		return 0, nil, false
	}
	return stats.Median(ratios), achieved, true
}

// judgeLoadsTogether turns a Short achieved rate into ShortWithOthers when the load is
// within MinOfOthers of the median load.
func (f *File) judgeLoadsTogether() {
	median, achieved, ok := f.medianLoad()
	if !ok {
		return
	}
	for _, s := range achieved {
		if v := s.Verdict; v.Verdict == Short && v.Ratio >= MinOfOthers*median {
			v.Verdict = ShortWithOthers
			v.Reason = say("reason-short-with-others", map[string]any{"AchievedPct": 100 * v.Ratio, "MinAchievedPct": 100 * MinAchieved,
				"MedianPct": 100 * median, "MinOfOthersPct": 100 * MinOfOthers})
		}
	}
}

// withOthers is the intro's sentence on loads short with the others, "" when none was.
func (f *File) withOthers() string {
	median, achieved, ok := f.medianLoad()
	n := 0
	for _, s := range achieved {
		if s.Verdict.Verdict == ShortWithOthers {
			n++
		}
	}
	if !ok || n == 0 {
		return ""
	}
	return say("intro-short-with-others", map[string]any{"Short": n, "Loads": len(achieved), "MedianPct": 100 * median,
		"Verdict": ShortWithOthers, "MinOfOthersPct": 100 * MinOfOthers})
}
