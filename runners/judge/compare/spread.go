package compare

import (
	"fmt"
	"math"
	"strings"

	"dbbench/runners/stats"
)

// The between-run spread. Each absolute figure's interval comes from its own run's
// repetitions, which see the machine's drift within a run but not what differs from one
// run to the next for one variant: which vCPU its processes land on, a noisy neighbour
// that slows code with a large footprint more than the yardstick's tight loop, the state
// a target starts in. On this kind of machine that term is large: in pairs of quick runs
// of the same code, the median variant's absolute figure moved relative to the yardstick
// by more than the noise threshold, and figures were called regressed on their
// within-run intervals alone (README.md, "The between-run spread", has the figures).
//
// So compare estimates it from the two runs themselves, as a random-effects
// meta-analysis estimates heterogeneity: with no change of code, the variants' judged
// changes of one unit scatter around a common value by the between-run spread; a code
// change moves a few of them far off. The estimate is robust to those few: τ =
// 1.4826 × the median absolute deviation of the variants' log changes (stats.RobustSD: a
// normal standard deviation where the scatter is normal). Each variant's interval is then
// widened, its half-width h on the log scale becoming √(h² + (1.96 τ)²). A change
// that moves every variant alike (a slower driver under all of them) leaves τ small,
// and the yardstick, not τ, decides whether the machine explains it.

// minSpreadVariants is the fewest variants of one unit from which τ is estimated;
// below it the intervals stay as they are and a note says so.
const minSpreadVariants = 5

// betweenRunSpread estimates τ for each unit from the candidates' judged changes,
// records them in res (res.Spread, as the 95% half-width 1.96 τ) and returns them, and
// the units with too few variants for τ, which cannot be judged (canttell.go).
func betweenRunSpread(cands []absCand, res *Result) (tau map[string]float64, few []string) {
	byUnit := map[string][]float64{}
	for _, c := range cands {
		byUnit[c.unit] = append(byUnit[c.unit], math.Log(c.judged.Value))
	}
	tau, res.Spread, few = spreadOf(byUnit, absoluteUnits)
	return tau, few
}

// spreadOf is τ of each unit in order from its log changes, the same as the 95%
// half-width people read (1.96 τ as a fraction, nil when no unit has one), and the
// units with changes but too few of them for τ.
func spreadOf(byUnit map[string][]float64, order []string) (tau, shown map[string]float64, few []string) {
	tau = map[string]float64{}
	for _, unit := range order {
		logs := byUnit[unit]
		if len(logs) == 0 {
			continue
		}
		if len(logs) < minSpreadVariants {
			few = append(few, unit)
			continue
		}
		tau[unit] = stats.RobustSD(logs)
		if shown == nil {
			shown = map[string]float64{}
		}
		shown[unit] = math.Exp(1.96*tau[unit]) - 1
	}
	return tau, shown, few
}

// widen adds the between-run spread tau (a standard deviation of log changes) to e's
// interval, in quadrature with each side's half-width on the log scale.
func widen(e stats.Estimate, tau float64) stats.Estimate {
	if tau == 0 || !e.HasInterval() {
		return e
	}
	side := func(h float64) float64 { return math.Sqrt(h*h + 1.96*tau*1.96*tau) }
	m := math.Log(e.Value)
	return stats.Estimate{Value: e.Value, Lo: math.Exp(m - side(m-math.Log(e.Lo))), Hi: math.Exp(m + side(math.Log(e.Hi)-m)), Confidence: e.Confidence}
}

// spreadText is the spread of each unit as people read it: "req/s ±9.4%, …".
func spreadText(spread map[string]float64, order []string) string {
	var parts []string
	for _, unit := range order {
		if s, ok := spread[unit]; ok {
			parts = append(parts, fmt.Sprintf("%s ±%.1f%%", unit, 100*s))
		}
	}
	return strings.Join(parts, ", ")
}
