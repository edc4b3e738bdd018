package sweep

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"dbbench/runners/report"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Production describes the deployment the advice is for.
type Production struct {
	Rate           float64       // peak arrival rate, requests per second per app instance
	SLO            time.Duration // the p99 target
	DBCores        int           // the database host's cores, for the rule of thumb
	Spindles       int           // its effective spindles (1 for an SSD)
	MaxConnections int           // the production server's max_connections
	AppInstances   int           // how many app instances share it
}

// PoolPage builds the pool sweep's report: the recommendation first, then the capacity
// at the SLO per pool, the closed-loop throughput and pool waits, and the USL fits.
func PoolPage(r *results.Run, prod Production) *report.SweepPage {
	curves := Curves(r)
	p := &report.SweepPage{Title: "dbbench pool sweep"}
	p.Intro = poolIntro(r, prod)
	rec := recommendation(curves, prod)
	p.Answer = rec.Paragraphs[:len(curves)] // one sentence per family: the page's first lines
	rec.Paragraphs = rec.Paragraphs[len(curves):]
	p.Sections = append(p.Sections, rec, capacitySection(curves, prod))
	for _, cv := range curves {
		p.Sections = append(p.Sections, closedSection(cv))
	}
	p.Sections = append(p.Sections, uslSection(curves, prod))
	if r.Status != "complete" {
		p.Intro = append(p.Intro, fmt.Sprintf("This sweep is %s: %s", r.Status, r.Error))
	}
	p.Sections = append(p.Sections, environment(r.Environment))
	return p
}

func poolIntro(r *results.Run, prod Production) []string {
	s := r.Settings
	return []string{
		fmt.Sprintf("Every pool size of each family ran at once (one target each), measured in slices of %s after a %s lead-in, interleaved across the points: closed-loop throughput, a concurrency series of the largest pool, then the capacity at the SLO, the highest open-loop rate whose p99 stays within %v with errors under %.2g%% and the offered rate kept (runners/saturation), found by bisection.",
			orDash(pairingSlice(s)), orDash(pairingLeadIn(s)), prod.SLO, 100*s.MaxErrorRate),
		"**The database, the app and the load generator share this machine's cores**: the capacities are this machine's, and each pool's figures include the others' contention for CPU. To size a pool for production, run the sweep with `--provider dsn` against a server like production's, from a machine like the app's.",
	}
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// recommendation says, per family, the smallest pool that holds the rate at the SLO,
// with its headroom, and what fits under max_connections.
func recommendation(curves []Curve, prod Production) report.SweepSection {
	thumb := RuleOfThumb(prod.DBCores, prod.Spindles)
	per := PerInstance(prod.MaxConnections, prod.AppInstances)
	sec := report.SweepSection{Heading: "Recommendation"}
	t := report.Table{Head: []string{"variant", "recommended pool", "its capacity (req/s)", "headroom", "smaller pool", "per instance (max_connections)", "USL N* (pool)", "knee", "rule of thumb"}}
	for _, cv := range curves {
		a := Advise(cv, prod.Rate)
		sec.Paragraphs = append(sec.Paragraphs, adviceSentence(cv, a, prod, per))
		row := []string{cv.Family, "none holds", "-", "-", "-", fmt.Sprint(per), nstar(a.ByPool), fmt.Sprint(a.Knee), fmt.Sprint(thumb)}
		if a.Pool > 0 {
			row[1], row[2], row[3] = fmt.Sprint(a.Pool), fmt.Sprintf("%.0f", a.Capacity), fmt.Sprintf("%+.0f%%", 100*a.Headroom)
		}
		if a.Short > 0 {
			row[4] = fmt.Sprintf("%d: %d req/s", a.Short, a.ShortCapacity)
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf(
		"Rule of thumb (database cores × 2 + spindles): %d × 2 + %d = %d. The knee is the smallest pool within %.0f%% of the best closed-loop throughput; N* = √((1−σ)/κ) is where the Universal Scalability Law fitted to throughput against pool size peaks.",
		prod.DBCores, prod.Spindles, thumb, 100*Within))
	sec.Tables = []report.Table{t}
	return sec
}

func adviceSentence(cv Curve, a Advice, prod Production, per int) string {
	if a.Pool == 0 {
		best := 0.0
		for _, p := range cv.Points {
			if p.Capacity != nil {
				best = max(best, p.Capacity.Rate)
			}
		}
		return fmt.Sprintf("%s: no pool holds %.0f req/s with p99 ≤ %v on this machine (the most any held: %.0f req/s); spread the load over more instances or a larger host.",
			cv.Family, prod.Rate, prod.SLO, best)
	}
	s := fmt.Sprintf("%s: at %.0f req/s with p99 ≤ %v, the smallest pool that holds is **%d**: its capacity there is %.0f req/s, headroom %+.0f%%",
		cv.Family, prod.Rate, prod.SLO, a.Pool, a.Capacity, 100*a.Headroom)
	if a.Short > 0 {
		s += fmt.Sprintf("; pool %d holds only %d req/s", a.Short, a.ShortCapacity)
	}
	total := a.Pool * prod.AppInstances
	fit := "fits"
	if a.Pool > per {
		fit = "does not fit"
	}
	return s + fmt.Sprintf(". %d app instances × %d = %d connections %s under max_connections %d (%d per instance).",
		prod.AppInstances, a.Pool, total, fit, prod.MaxConnections, per)
}

// nstar is the fit's N*, "-" without a fit.
func nstar(u *stats.USL) string {
	switch {
	case u == nil:
		return "-"
	case math.IsInf(u.NStar, 1):
		return "∞"
	}
	return fmt.Sprintf("%.0f", u.NStar)
}

// capacitySection tables each point's capacity at the SLO, with the pool's waits at
// that rate, and charts capacity against pool size.
func capacitySection(curves []Curve, prod Production) report.SweepSection {
	sec := report.SweepSection{Heading: fmt.Sprintf("Capacity at p99 ≤ %v", prod.SLO)}
	t := report.Table{Head: []string{"variant", "pool", "capacity (req/s)", "p99 there (ms)", "pool wait per request there (ms)", "connections in use there, mean (max)", "probes"}}
	chart := report.LineChart{Title: fmt.Sprintf("Capacity at p99 ≤ %v against pool size", prod.SLO),
		XLabel: "pool size", YLabel: "req/s", LogX: true}
	for _, cv := range curves {
		s := report.Series{Name: familyName(cv.Family), Stmt: keyValue(cv.Family, "stmt"), Conn: keyValue(cv.Family, "conn")}
		for _, p := range cv.Points {
			row := []string{cv.Family, fmt.Sprint(p.Pool), "-", "-", "-", "-", "-"}
			switch {
			case p.Invalid != "":
				row[2] = "invalid: " + p.Invalid
			case p.Capacity != nil:
				row[2] = fmt.Sprintf("%.0f", p.Capacity.Rate)
				row[6] = probes(p.Capacity)
				s.X, s.Y = append(s.X, float64(p.Pool)), append(s.Y, p.Capacity.Rate)
			}
			if rep := p.AtCapacity; rep != nil {
				n := float64(max(rep.Requests, 1))
				row[3] = fmt.Sprintf("%.1f", 1e3*rep.P99)
				if rep.PoolCounted {
					row[4] = fmt.Sprintf("%.3f", 1e3*rep.PoolWaitSeconds/n)
					row[5] = fmt.Sprintf("%.1f (%d)", rep.PoolInUseMean, rep.PoolInUseMax)
				}
			}
			t.Rows = append(t.Rows, row)
		}
		chart.Series = append(chart.Series, s)
	}
	sec.Paragraphs = []string{"Each rate was held for one slice; a probe failed on its p99, its errors, or a shortfall or growing backlog (past capacity). Probes lists the rates tried, ✓ held, ✗ did not."}
	sec.Tables, sec.Charts = []report.Table{t}, []report.LineChart{chart}
	return sec
}

func probes(c *results.Capacity) string {
	sorted := slices.Clone(c.Probes)
	slices.SortFunc(sorted, func(a, b results.Probe) int { return int(a.Rate - b.Rate) })
	var out []string
	for _, p := range sorted {
		mark := "✗"
		if p.Pass {
			mark = "✓"
		}
		out = append(out, fmt.Sprintf("%.0f%s", p.Rate, mark))
	}
	return strings.Join(out, " ")
}

// closedSection tables a family's closed-loop slices: throughput, p99 and the time
// requests waited for a pool connection, per pool and client count.
func closedSection(cv Curve) report.SweepSection {
	sec := report.SweepSection{Heading: "Closed loop: " + cv.Family}
	t := report.Table{Head: []string{"pool", "clients", "QPS", "p99 ms", "pool wait per request (ms)", "waits per request", "in use, mean (max)", "Threads_running", "note"}}
	for _, p := range cv.Points {
		for _, c := range sortedLevels(p.Levels) {
			l := p.Levels[c]
			row := []string{fmt.Sprint(p.Pool), fmt.Sprint(c), fmt.Sprintf("%.0f", median(l.QPS)), fmt.Sprintf("%.2f", 1e3*median(l.P99)),
				"n/a", "n/a", "n/a", fmt.Sprintf("%.1f", median(l.Threads)), ""}
			if len(l.WaitSeconds) > 0 {
				row[4], row[5] = fmt.Sprintf("%.3f", 1e3*median(l.WaitSeconds)), fmt.Sprintf("%.2f", median(l.Waits))
				row[6] = fmt.Sprintf("%.1f (%d)", median(l.InUseMean), l.InUseMax)
			}
			if l.Saturation.Marked() {
				row[8] = l.Saturation.State
			}
			t.Rows = append(t.Rows, row)
		}
	}
	sec.Paragraphs = []string{"Medians of the slices. A pool wait is database/sql's: a request found every connection of the pool busy and waited for one (php-fpm has no such count: its requests queue before a worker, n/a). A point marked queueing spent most of its requests' time waiting: its QPS is the throughput of that pool, its p99 the length of the queue."}
	sec.Tables = []report.Table{t}
	return sec
}

func sortedLevels(m map[int]*Level) []int {
	var out []int
	for c := range m {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// uslSection charts the closed-loop throughput against pool size and against
// concurrency with the Universal Scalability Law fitted to each.
func uslSection(curves []Curve, prod Production) report.SweepSection {
	sec := report.SweepSection{Heading: "Universal Scalability Law"}
	sec.Paragraphs = []string{"X(N) = λN / (1 + σ(N−1) + κN(N−1)): σ is contention (serialised work), κ coherency (the cost of keeping N in step); throughput peaks at N* = √((1−σ)/κ). Fitted by least squares on log throughput (runners/stats/usl.go) to the median closed-loop throughput of each pool at the top client count, and of the largest pool at each client count."}
	t := report.Table{Head: []string{"variant", "against", "λ (req/s per unit)", "σ", "κ", "N*", "R²"}}
	for _, cv := range curves {
		a := Advise(cv, prod.Rate)
		if a.ByPool != nil {
			t.Rows = append(t.Rows, uslRow(cv.Family, fmt.Sprintf("pool size (%d clients)", cv.Top()), a.ByPool.Lambda, a.ByPool.Sigma, a.ByPool.Kappa, a.ByPool.NStar, a.ByPool.R2))
			sec.Charts = append(sec.Charts, uslChart(cv.Family+": QPS against pool size", "pool size", cv, true, a))
		}
		if a.ByClients != nil {
			t.Rows = append(t.Rows, uslRow(cv.Family, fmt.Sprintf("clients (pool %d)", cv.Largest().Pool), a.ByClients.Lambda, a.ByClients.Sigma, a.ByClients.Kappa, a.ByClients.NStar, a.ByClients.R2))
			sec.Charts = append(sec.Charts, uslChart(cv.Family+": QPS against clients", "client connections", cv, false, a))
		}
		sec.Paragraphs = append(sec.Paragraphs, a.FitErrors...)
	}
	sec.Tables = []report.Table{t}
	return sec
}

func uslRow(family, against string, lambda, sigma, kappa, nstar, r2 float64) []string {
	n := fmt.Sprintf("%.0f", nstar)
	if math.IsInf(nstar, 1) {
		n = "∞ (κ = 0: no peak)"
	}
	return []string{family, against, fmt.Sprintf("%.0f", lambda), fmt.Sprintf("%.3f", sigma), fmt.Sprintf("%.5f", kappa), n, fmt.Sprintf("%.3f", r2)}
}

// uslChart draws the measured points and the fitted curve.
func uslChart(title, xlabel string, cv Curve, byPool bool, a Advice) report.LineChart {
	c := report.LineChart{Title: title, XLabel: xlabel, YLabel: units.QPS, LogX: true}
	measured := report.Series{Name: "measured"}
	fit := a.ByClients
	if byPool {
		fit = a.ByPool
		top := cv.Top()
		for _, p := range cv.Points {
			if l := p.Levels[top]; l != nil && p.Invalid == "" && p.Pool <= top {
				measured.X, measured.Y = append(measured.X, float64(p.Pool)), append(measured.Y, median(l.QPS))
			}
		}
	} else {
		l := cv.Largest()
		for _, n := range sortedLevels(l.Levels) {
			measured.X, measured.Y = append(measured.X, float64(n)), append(measured.Y, median(l.Levels[n].QPS))
		}
	}
	curve := report.Series{Name: fmt.Sprintf("USL fit (σ %.3f, κ %.5f)", fit.Sigma, fit.Kappa)}
	if len(measured.X) > 0 {
		lo, hi := slices.Min(measured.X), slices.Max(measured.X)
		for x := lo; x <= hi*1.0001; x *= math.Pow(2, 0.25) {
			curve.X, curve.Y = append(curve.X, x), append(curve.Y, fit.Predict(x))
		}
	}
	c.Series = []report.Series{measured, curve}
	return c
}

func environment(env map[string]string) report.SweepSection {
	t := report.Table{Head: []string{"setting", "value"}}
	for _, k := range sortedKeys(env) {
		t.Rows = append(t.Rows, []string{k, env[k]})
	}
	return report.SweepSection{Heading: "Environment", Tables: []report.Table{t}}
}

// keyValue is the value of key in a family's name (stmt=prepare → prepare).
func keyValue(family, key string) string {
	for _, part := range strings.Split(family, "/") {
		if v, ok := strings.CutPrefix(part, key+"="); ok {
			return v
		}
	}
	return ""
}

// familyName is a family's values without their keys: go/nethttp/raw/interpolate/persistent.
func familyName(family string) string {
	var parts []string
	for _, part := range strings.Split(family, "/") {
		_, v, ok := strings.Cut(part, "=")
		if !ok {
			v = part
		}
		parts = append(parts, v)
	}
	return strings.Join(parts, "/")
}
