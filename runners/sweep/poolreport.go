package sweep

import (
	"fmt"
	"strings"

	"dbbench/runners/report"
	"dbbench/runners/saturation"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// Capacity is what the report sets the measured advice beside.
type Capacity struct {
	DBCores        int // the database host's cores, for the rule of thumb
	Spindles       int // its effective spindles (1 for an SSD)
	MaxConnections int // the production server's max_connections
	AppInstances   int // how many app instances share it
}

// PoolPage builds the pool sweep's report from its levels.
func PoolPage(levels []Level, c Capacity) *report.SweepPage {
	thumb := RuleOfThumb(c.DBCores, c.Spindles)
	per := PerInstance(c.MaxConnections, c.AppInstances)
	p := &report.SweepPage{Title: "dbbench pool sweep"}
	if len(levels) > 0 {
		s := levels[0].Run.Settings
		p.Intro = append(p.Intro, fmt.Sprintf(
			"Closed loop at %s client connections; each pool point measured %d times for %s after a %s warm-up, repetitions interleaved across the points of a level. Each concurrency level is one run with its own freshly provisioned database (%s).",
			joinInts(levelsConcurrency(levels)), s.Reps, s.Duration, s.Warmup, s.Provider))
	}
	p.Intro = append(p.Intro,
		"Pools above a level's concurrency are not run: with at most that many requests in flight a larger pool holds no more busy connections. The first pool at or above the concurrency is run and stands for all larger ones.",
		fmt.Sprintf("Knee: the smallest pool whose median QPS is within %.0f%% of the best. Recommended: the smallest pool from the knee up within %.0f%% of the best QPS whose p99 is not significantly worse than the best pool's (Mann-Whitney U over the repetitions, alpha %.2g; it needs at least 4 repetitions per point to ever see a difference). QPS cells show the median and, from 6 repetitions up, the larger side of its 95%% confidence interval.",
			100*Within, 100*Within, stats.Alpha),
		fmt.Sprintf("Rule of thumb (database cores × 2 + spindles): %d × 2 + %d = %d. max_connections %d shared by %d app instances allows %d connections per instance (runner and admin connections not counted).",
			c.DBCores, c.Spindles, thumb, c.MaxConnections, c.AppInstances, per))

	rec := report.SweepSection{Heading: "Recommendation"}
	tab := report.Table{Head: []string{"variant", "concurrency", "best QPS (pool)", "knee", "recommended pool", "its QPS", "its p99 / best's", "past the best", "rule of thumb", "per instance (max_connections)"}}
	var notes []string
	byFamily := map[string][]string{} // "8 at 64 connections", in level order
	var families []string
	for _, l := range levels {
		for _, cv := range l.Curves {
			a, err := Recommend(cv.Points)
			if err != nil {
				tab.Rows = append(tab.Rows, []string{cv.Family, fmt.Sprint(l.Concurrency), err.Error(), "", "", "", "", "", fmt.Sprint(thumb), fmt.Sprint(per)})
				continue
			}
			if byFamily[cv.Family] == nil {
				families = append(families, cv.Family)
			}
			byFamily[cv.Family] = append(byFamily[cv.Family], fmt.Sprintf("%d at %d", a.Pool, l.Concurrency))
			past := "no fall"
			if a.DegradesAt > 0 {
				past = fmt.Sprintf("−%.0f%% QPS at pool %d", 100*a.Drop, a.DegradesAt)
			}
			fit := fmt.Sprint(per)
			if a.Pool > per {
				fit += fmt.Sprintf(" (the recommended %d does not fit)", a.Pool)
			}
			tab.Rows = append(tab.Rows, []string{cv.Family, fmt.Sprint(l.Concurrency),
				fmt.Sprintf("%.0f (%d)", a.BestQPS, a.Best), fmt.Sprint(a.Knee), fmt.Sprint(a.Pool),
				fmt.Sprintf("%.0f", a.PoolQPS), fmt.Sprintf("%.2f", a.P99Ratio), past, fmt.Sprint(thumb), fit})
			for _, n := range a.Notes {
				if strings.HasPrefix(n, "p99 test: ") {
					notes = append(notes, n) // the same for every curve: said once
					continue
				}
				notes = append(notes, fmt.Sprintf("%s at concurrency %d: %s", cv.Family, l.Concurrency, n))
			}
		}
	}
	if len(families) > 0 {
		p.Answer = append(p.Answer, fmt.Sprintf("Recommended pool (pool at client connections): the smallest within %.0f%% of the best QPS whose p99 is no worse than the best pool's.", 100*Within))
	}
	for _, f := range families {
		p.Answer = append(p.Answer, fmt.Sprintf("%s: %s.", familyName(f), strings.Join(byFamily[f], ", ")))
	}
	if len(families) > 0 {
		p.Answer = append(p.Answer, fmt.Sprintf("The rule of thumb (database cores × 2 + spindles) says %d; max_connections %d shared by %d app instances allows %d each.",
			thumb, c.MaxConnections, c.AppInstances, per))
	}
	rec.Tables = append(rec.Tables, tab)
	rec.Paragraphs = append(rec.Paragraphs, dedupe(notes)...)
	p.Sections = append(p.Sections, rec)

	for _, l := range levels {
		sec := report.SweepSection{Heading: fmt.Sprintf("Concurrency %d", l.Concurrency)}
		qps := report.LineChart{Title: fmt.Sprintf("Median QPS against pool size, %d client connections", l.Concurrency),
			XLabel: "pool (Go SetMaxOpenConns, PHP pm.max_children)", YLabel: "req/s", LogX: true}
		p99 := report.LineChart{Title: fmt.Sprintf("Median p99 against pool size, %d client connections", l.Concurrency),
			XLabel: qps.XLabel, YLabel: "p99 ms", LogX: true}
		t := report.Table{Head: []string{"variant", "pool", "QPS", "p99 ms", "pool waits / rep", "Threads_running mean (max)", "errors", "note"}}
		queued := false
		for _, cv := range l.Curves {
			sq, sp := report.Series{Name: cv.Family}, report.Series{Name: cv.Family}
			sq.Stmt, sq.Conn = keyValue(cv.Family, "stmt"), keyValue(cv.Family, "conn")
			sp.Stmt, sp.Conn = sq.Stmt, sq.Conn
			for _, pt := range cv.Points {
				row := []string{cv.Family, fmt.Sprint(pt.Pool), "-", "-", "-", "-", fmt.Sprint(pt.Errors), pt.Invalid}
				if pt.Invalid == "" && pt.Saturation.Marked() {
					row[7] = pt.Saturation.State
					queued = true
				}
				if len(pt.QPS) > 0 {
					q, _ := stats.Summarize(pt.QPS, units.QPS)
					l99, _ := stats.Summarize(pt.P99, units.P99)
					row[2], row[3] = withInterval(q), fmt.Sprintf("%.2f", 1e3*l99.Center)
					row[4] = waits(pt.PoolWaits)
					row[5] = fmt.Sprintf("%.1f (%d)", pt.ThreadsRunning, pt.ThreadsMax)
					if pt.Invalid == "" {
						sq.X, sq.Y = append(sq.X, float64(pt.Pool)), append(sq.Y, q.Center)
						sp.X, sp.Y = append(sp.X, float64(pt.Pool)), append(sp.Y, 1e3*l99.Center)
					}
				}
				t.Rows = append(t.Rows, row)
			}
			qps.Series, p99.Series = append(qps.Series, sq), append(p99.Series, sp)
		}
		sec.Charts = []report.LineChart{qps, p99}
		sec.Tables = []report.Table{t}
		if queued {
			sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("A point marked %q spent most of its requests' time waiting for a pool connection or in the server's queue (runners/saturation): its QPS is still the throughput at that pool, but its p99 is the length of the queue (%d clients over the pool's slots), not service time.", saturation.Queueing, l.Concurrency))
		}
		if l.Run.Status != "complete" {
			sec.Paragraphs = append(sec.Paragraphs, fmt.Sprintf("This level's run is %s: %s", l.Run.Status, l.Run.Error))
		}
		p.Sections = append(p.Sections, sec)
	}
	if len(levels) > 0 {
		p.Sections = append(p.Sections, environment(levels[0].Run.Environment))
	}
	return p
}

// waits is the median pool waits per repetition; n/a where the target has no pool
// counters (php-fpm: each worker holds its own connection, requests queue before it).
func waits(xs []float64) string {
	if len(xs) == 0 {
		return "n/a"
	}
	s, err := stats.Summarize(xs, "waits/op")
	if err != nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", s.Center)
}

func environment(env map[string]string) report.SweepSection {
	t := report.Table{Head: []string{"setting", "value"}}
	for _, k := range sortedKeys(env) {
		t.Rows = append(t.Rows, []string{k, env[k]})
	}
	return report.SweepSection{Heading: "Environment", Tables: []report.Table{t}}
}

func levelsConcurrency(ls []Level) []int {
	var out []int
	for _, l := range ls {
		out = append(out, l.Concurrency)
	}
	return out
}

func joinInts(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// withInterval is the median and, when the sample allows one, the larger side of its
// 95% interval in percent; the reason for a missing interval is said once, above.
func withInterval(s stats.Summary) string {
	if !s.HasInterval() || s.Center == 0 {
		return fmt.Sprintf("%.0f", s.Center)
	}
	return fmt.Sprintf("%.0f ± %.0f%%", s.Center, 100*max(s.Center-s.Lo, s.Hi-s.Center)/s.Center)
}

// keyValue is the value of key in a variant key or family, "" when it has none.
func keyValue(family, key string) string {
	for _, part := range strings.Split(family, "/") {
		if v, ok := strings.CutPrefix(part, key+"="); ok {
			return v
		}
	}
	return ""
}

// familyName is a family key without its key names: go/nethttp/raw/interpolate/persistent.
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
