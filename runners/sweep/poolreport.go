package sweep

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/internal/words"
	"dbbench/runners/present/doc"
	"dbbench/runners/units"

	"dbbench/runners/judge/poolsize"
	"dbbench/runners/results"
)

// Within is how close the model must come to a measured capacity to be called right.
const Within = 0.15

// PoolPage builds the pool sweep's report: per family, the smallest pool that holds the
// need as measured, with the model's answer beside it; then each pool's measured and
// predicted capacity, and how the sweep measured.
func PoolPage(s *PoolSweep) *doc.Page {
	r, need, curves := s.Run, s.Need, s.Curves
	p := &doc.Page{Title: "dbbench pool sweep"}
	for _, cv := range curves {
		p.Answer = append(p.Answer, adviceSentence(cv, cv.Advice))
	}
	p.Intro = poolIntro(r, need)
	p.Sections = append(p.Sections, capacitySection(curves, need), modelSection(curves, need))
	if r.Status != results.Complete {
		p.Intro = append(p.Intro, fmt.Sprintf("This sweep is %s: %s", r.Status, r.Error))
	}
	p.Sections = append(p.Sections, environment(r.Environment))
	return p
}

func poolIntro(r *results.Run, need poolsize.Need) []string {
	s := r.Settings
	out := []string{}
	if r.Command != "" {
		out = append(out, "Made by `"+withoutOut(r.Command)+"`.")
	}
	link := "on loopback"
	if r.Link != nil {
		link = fmt.Sprintf("%s between the targets and the database (%s added by a delay proxy, half each way; %s's round trip on the targets' path, %s direct)",
			units.Seconds(r.Link.Path), units.Seconds(r.Link.Added), words.A(r.Topology.DBProbe()), units.Seconds(r.Link.Direct))
	}
	return append(out,
		say("pool-method", map[string]any{"Link": link, "P99": need.P99, "MaxErrors": fmt.Sprintf("%.2g%%", 100*s.MaxErrorRate),
			"Slice": units.OrDash(pairingSlice(s)), "LeadIn": units.OrDash(pairingLeadIn(s))}),
		say("pool-shared-cores", nil),
	)
}

func pairingSlice(s results.Settings) string {
	if s.Pairing != nil {
		return s.Pairing.Slice
	}
	return s.Duration
}

func pairingLeadIn(s results.Settings) string {
	if s.Pairing != nil {
		return s.Pairing.LeadIn
	}
	return ""
}

// adviceSentence keeps the form scripts read, "the smallest pool that holds is **N**",
// with the measured capacity and its interval, the model's pool, and the settings.
func adviceSentence(cv Curve, a Advice) string {
	n := a.Need
	if a.Pool == 0 {
		best := 0.0
		for _, p := range cv.Points {
			if p.Capacity != nil {
				best = max(best, p.Capacity.Rate)
			}
		}
		s := fmt.Sprintf("%s: %s, no pool holds on this machine (the most any held: %.0f req/s)", cv.Family, n.Assumptions(), best)
		if a.HasModel && a.Model.Pool > 0 {
			s += fmt.Sprintf("; the first screen's model, for an app host of %d cores and a database host of %d, needs %d", n.AppCores, n.DBCores, a.Model.Pool)
		}
		return s + "; spread the load over more instances or a larger host."
	}
	c := a.Capacity
	capacity := units.WholeEstimate(c.Rate, c.Lo, c.Hi, "req/s")
	if c.Lo == 0 && c.Hi == 0 {
		capacity = capacityText(c) + " req/s"
	}
	s := fmt.Sprintf("%s: %s, the smallest pool that holds is **%d**: its capacity is %s",
		cv.Family, n.Assumptions(), a.Pool, capacity)
	if a.Undecided > 0 {
		s += fmt.Sprintf(" (pool %d may hold too: its interval straddles %.0f req/s)", a.Undecided, n.Rate)
	}
	s += "."
	if a.HasModel {
		m := a.Model
		switch {
		case m.Pool == a.Pool:
			s += fmt.Sprintf(" The first screen's model agrees: a request holds its %s %s alone here, so %d carry %.0f req/s.", m.Hold.Resource, units.Seconds(m.Hold.Seconds), m.Pool, m.Capacity)
		case m.Pool > 0:
			s += fmt.Sprintf(" The first screen's model, from a hold of %s per request, says %d.", units.Seconds(m.Hold.Seconds), m.Pool)
			if d := m.Pool - a.Pool; d > 1 || d < -1 {
				s += " " + whyApart(cv, a)
			}
		}
		if a.Pool < 2 {
			s += " A pool of 1 is a risk: one slow query holds up every request; 2 are advised."
		}
		adv := m
		adv.Pool = max(2, a.Pool)
		s += " " + adv.Settings()
	}
	return s
}

// whyApart says why the model's answer and the measured one are more than a size
// apart: the model sizes production's hosts, the sweep measured this machine, where
// every role shares the cores; the same model on those predicts what it should have.
func whyApart(cv Curve, a Advice) string {
	if u, m := a.Undecided, a.Model.Pool; u > 0 && m >= u && m < a.Pool {
		return say("pool-apart-not-in-conflict", map[string]any{"Undecided": u, "Rate": a.Need.Rate, "Pool": a.Pool, "Model": m, "Below": a.Pool - 1})
	}
	if !a.HasHere {
		return "More than one size apart; the model knows no CPU for this sweep (it recorded no cores, or no production hosts were given)."
	}
	n, here := a.Need, a.Here
	return fmt.Sprintf("More than one size apart: the model sizes an app host of %d cores and a database host of %d, "+
		"while here every role (and the load generator and delay proxy) shared %d cores; on those the same model says %d.",
		n.AppCores, n.DBCores, cv.Cores, here.Pool)
}

// capacitySection tables each point's capacity with its interval, the model's beside
// it, and charts both against pool size.
func capacitySection(curves []Curve, need poolsize.Need) doc.Section {
	sec := doc.Section{Heading: fmt.Sprintf("Capacity at p99 ≤ %v", need.P99)}
	t := doc.Table{Head: []string{"variant", "pool", "capacity (req/s) [95%]", "model: pool's limit", "model: predicted", "predicted ÷ measured",
		"p99 there (ms)", "connections in use there, mean (max)", "searches"}}
	chart := doc.LineChart{Title: fmt.Sprintf("Capacity at p99 ≤ %v against pool size", need.P99), XLabel: "pool size", YLabel: "req/s", LogX: true}
	for _, cv := range curves {
		measured := doc.Series{Name: familyName(cv.Family), Stmt: keyValue(cv.Family, "stmt"), Conn: keyValue(cv.Family, "conn")}
		model := doc.Series{Name: familyName(cv.Family) + " (model)", Stmt: keyValue(cv.Family, "stmt"), Conn: "per-request"}
		for _, p := range cv.Points {
			row := []string{cv.Family, fmt.Sprint(p.Pool), "-", "-", "-", "-", "-", "-", "-"}
			if p.Invalid != "" {
				row[2] = "invalid: " + p.Invalid
			} else if c := p.Capacity; c != nil {
				row[2] = capacityText(c)
				row[8] = searches(c)
				measured.X, measured.Y = append(measured.X, float64(p.Pool)), append(measured.Y, c.Rate)
			}
			if pred, limit := p.Predicted, p.Limit; p.HasPrediction {
				row[3], row[4] = fmt.Sprintf("%.0f", limit), fmt.Sprintf("%.0f", pred)
				if p.Capacity != nil && p.Capacity.Rate > 0 {
					row[5] = fmt.Sprintf("%.2f", pred/p.Capacity.Rate)
				}
				model.X, model.Y = append(model.X, float64(p.Pool)), append(model.Y, pred)
			}
			if rep := p.AtCapacity; rep != nil {
				row[6] = fmt.Sprintf("%.1f", 1e3*rep.P99)
				if rep.PoolCounted {
					row[7] = fmt.Sprintf("%.1f (%d)", rep.PoolInUseMean, rep.PoolInUseMax)
					if rep.PoolHeld > 0 { // timed in the target: what a checkout held there
						row[7] += fmt.Sprintf(", %s a checkout", units.Seconds(rep.PoolHeld))
					}
				}
			}
			t.Rows = append(t.Rows, row)
		}
		chart.Series = append(chart.Series, measured, model)
	}
	sec.Paragraphs = []string{
		say("pool-probes", map[string]any{"Tail": poolsize.Tail}),
		modelVerdict(curves, need),
	}
	sec.Tables, sec.Charts = []doc.Table{t}, []doc.LineChart{chart}
	return sec
}

// modelVerdict counts the points whose prediction is within Within of the measurement.
func modelVerdict(curves []Curve, need poolsize.Need) string {
	in, inInterval, all := 0, 0, 0
	for _, cv := range curves {
		for _, p := range cv.Points {
			pred := p.Predicted
			if !p.HasPrediction || p.Capacity == nil || p.Capacity.Rate <= 0 || p.Invalid != "" {
				continue
			}
			all++
			if r := pred / p.Capacity.Rate; r >= 1-Within && r <= 1+Within {
				in++
			}
			if c := p.Capacity; c.Hi > 0 && pred >= (1-Within)*c.Lo && pred <= (1+Within)*c.Hi {
				inInterval++
			}
		}
	}
	if all == 0 {
		return "No point has both a measured capacity and a model's."
	}
	return fmt.Sprintf("The model is within ±%.0f%% of the measured capacity at %d of %d points, and within ±%.0f%% of its 95%% interval at %d.", 100*Within, in, all, 100*Within, inInterval)
}

func capacityText(c *results.Capacity) string {
	switch {
	case len(c.Searches) == 0:
		return fmt.Sprintf("%.0f (one search)", c.Rate)
	case c.Lo == 0 && c.Hi == 0:
		return fmt.Sprintf("%.0f (%d searches: too few for an interval)", c.Rate, len(c.Searches))
	}
	return units.WholeEstimate(c.Rate, c.Lo, c.Hi, "")
}

func searches(c *results.Capacity) string {
	if len(c.Searches) == 0 {
		return probes(c)
	}
	var out []string
	for _, s := range c.Searches {
		out = append(out, fmt.Sprintf("%.0f", s))
	}
	return strings.Join(out, " ")
}

func probes(c *results.Capacity) string {
	sorted := slices.Clone(c.Probes)
	slices.SortFunc(sorted, func(a, b results.Probe) int { return int(a.Rate - b.Rate) })
	var out []string
	for _, p := range sorted {
		mark := "✗"
		switch {
		case p.Pass:
			mark = "✓"
		case p.Inconclusive:
			mark = "?"
		}
		out = append(out, fmt.Sprintf("%.0f%s", p.Rate, mark))
	}
	return strings.Join(out, " ")
}

// modelSection shows each family's hold: as measured here, split into its round trips
// and the rest, and moved to the production distance the need states.
func modelSection(curves []Curve, need poolsize.Need) doc.Section {
	sec := doc.Section{Heading: "The model's input: what a request holds"}
	t := doc.Table{Head: []string{"variant", "holds", "round trips", "hold here [95%]", "of it, round trips at the measured link", "the rest (database, app)", "hold at " + need.RTT.String(), "p99 alone here"}}
	var holds []poolsize.Hold
	for _, cv := range curves {
		h, ok := cv.Hold()
		if !ok {
			continue
		}
		holds = append(holds, h)
		trips := h.RoundTrips * h.RTT
		there := h.At(need.RTT)
		t.Rows = append(t.Rows, []string{cv.Family, string(h.Resource), fmt.Sprintf("%.2g", h.RoundTrips),
			units.SecondsEstimate(h.Seconds, h.Lo, h.Hi),
			units.Seconds(trips), units.Seconds(h.Seconds - trips), units.Seconds(there.Seconds), units.Seconds(h.P99)})
	}
	conn, child := poolsize.HowTimed(holds)
	sec.Paragraphs = []string{say("model-input", map[string]any{"GoHeld": conn, "FPMHeld": child})}
	sec.Tables = []doc.Table{t}
	return sec
}

func environment(env map[string]string) doc.Section {
	t := doc.Table{Head: []string{"setting", "value"}}
	for _, k := range sortedKeys(env) {
		t.Rows = append(t.Rows, []string{k, env[k]})
	}
	return doc.Section{Heading: "Environment", Tables: []doc.Table{t}}
}

// keyValue is the value of key in a family's name (stmt=prepare → prepare).
func keyValue(family, key string) string {
	v, _ := matrix.ValueOf(family, key)
	return v
}

// familyName is a family's values without their keys: go/nethttp/raw/interpolate/persistent.
func familyName(family string) string { return matrix.ShortKey(family) }

func secondsToDuration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// withoutOut is a command line without its --out DIR: the page sits in that directory,
// and its path is the machine's that ran it, not the reader's.
func withoutOut(command string) string {
	f := strings.Fields(command)
	out := f[:0]
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == "--out" || f[i] == "-out":
			i++ // and its value
		case strings.HasPrefix(f[i], "--out=") || strings.HasPrefix(f[i], "-out="):
		default:
			out = append(out, f[i])
		}
	}
	return strings.Join(out, " ")
}
