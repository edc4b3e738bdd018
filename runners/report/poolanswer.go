package report

import (
	"dbbench/runners/units"
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/poolsize"
	"dbbench/runners/results"
)

// sized is one persistent variant's pool for the run's need.
type sized struct {
	v      *results.Variant
	hold   poolsize.Hold // as measured
	advice poolsize.Advice
}

// pools sizes every valid persistent variant that reads the database for the run's
// need; nil when the run has no need or no link (older runs).
func (d *data) pools() (poolsize.Need, []sized) {
	need, ok := poolsize.NeedOf(d.run.Settings.PoolNeed)
	if !ok || d.run.Link == nil {
		return need, nil
	}
	var out []sized
	for _, v := range d.valid {
		if !v.DB || v.Conn != "persistent" || v.Op != "" { // pools are sized for get
			continue
		}
		if h, ok := poolsize.Of(v, d.run.Link.Path); ok {
			out = append(out, sized{v, h, poolsize.Size(h, need)})
		}
	}
	return need, out
}

// poolAnswer answers "how large a pool?" per language and server: the pool of its raw
// driver and the range over its other layers, at the stmt mode most of them share.
func (d *data) poolAnswer() answer {
	a := answer{ID: "q-pool", Title: "4. How large a pool"}
	need, all := d.pools()
	if all == nil {
		a.Sentence = "This run sized no pool (it has no zero-load " + term("hold times", "hold-time") + " or no pool need: runs before dbbench sized pools)."
		return a
	}
	var chunks []string
	for _, g := range poolGroups(all) {
		of := atCommonStmt(g)
		chunks = append(chunks, poolChunk(of))
	}
	a.Sentence = fmt.Sprintf("Sized %s: %s.", need.Assumptions(), strings.Join(chunks, "; "))
	a.Evidence = "From each variant's " + term("hold time", "hold-time") + " alone and an " + term("M/M/c", "mmc") + " model; `make pool-sweep` measures it."
	return a
}

// poolGroups splits the sized variants by language and server, in run order.
func poolGroups(all []sized) [][]sized {
	var out [][]sized
	idx := map[group]int{}
	for _, s := range all {
		g := groupOf(s.v)
		i, ok := idx[g]
		if !ok {
			i, idx[g] = len(out), len(out)
			out = append(out, nil)
		}
		out[i] = append(out[i], s)
	}
	return out
}

// atCommonStmt keeps the variants at the stmt mode most of the group has.
func atCommonStmt(g []sized) []sized {
	count := map[string]int{}
	best := ""
	for _, s := range g {
		count[s.v.Stmt]++
		if count[s.v.Stmt] > count[best] {
			best = s.v.Stmt
		}
	}
	return slices.DeleteFunc(slices.Clone(g), func(s sized) bool { return s.v.Stmt != best })
}

// poolChunk is "Go (interpolate): database/sql **2** connections, ORMs 2–3".
func poolChunk(of []sized) string {
	v := of[0].v
	head := fmt.Sprintf("%s (%s)", langName(v.Lang), v.Stmt)
	if v.Server != "" && v.Lang == "php" {
		head = fmt.Sprintf("%s (%s)", serverName(v.Server), v.Stmt)
	}
	var raw, rest []sized
	for _, s := range of {
		if s.v.Kind == "raw" && s.v.Layer == "raw" {
			raw = append(raw, s)
		} else {
			rest = append(rest, s)
		}
	}
	var parts []string
	for _, s := range raw {
		parts = append(parts, fmt.Sprintf("%s %s %s", shortLibrary(s.v), poolText(s.advice), resourceWord(s.hold)))
	}
	if len(rest) > 0 {
		lo, hi := rest[0], rest[0]
		for _, s := range rest {
			if s.advice.Pool < lo.advice.Pool {
				lo = s
			}
			if s.advice.Pool > hi.advice.Pool {
				hi = s
			}
		}
		if lo.advice.Pool == hi.advice.Pool {
			parts = append(parts, fmt.Sprintf("its other layers %s", poolText(lo.advice)))
		} else {
			parts = append(parts, fmt.Sprintf("%s (%s) to %s (%s)", poolText(lo.advice), shortLibrary(lo.v), poolText(hi.advice), shortLibrary(hi.v)))
		}
	}
	return head + ": " + strings.Join(parts, ", ")
}

func poolText(a poolsize.Advice) string {
	if a.Pool == 0 {
		return "none holds"
	}
	return fmt.Sprint(a.Pool)
}

func resourceWord(h poolsize.Hold) string {
	switch h.Resource {
	case "connection":
		return "connections"
	case "php-fpm child":
		return "children (pm.max_children)"
	}
	return "workers"
}

// poolSection holds the fourth answer's table: every sized variant, how its hold was
// measured and moved to the need's distance, and the pool with its settings.
func (d *data) poolSection(a answer) section {
	s := section{ID: a.ID, Title: a.Title}
	need, all := d.pools()
	if all == nil {
		s.Empty = a.Sentence
		return s
	}
	link := d.run.Link
	s.Intro = []string{fmt.Sprintf("Sized %s. The link between targets and database was %s (a COM_PING's round trip on the targets' path; %s direct), "+
		"%s added on purpose.", need.Assumptions(), units.Seconds(link.Path), units.Seconds(link.Direct), units.Seconds(link.Added)),
		"How: while its commands are counted, each variant serves requests one at a time. A Go request holds its pooled connection while its commands wait for " +
			"the database (timed at the counting proxy: the database's work and every round trip); a PHP request holds its php-fpm child or worker for all of its latency. " +
			"Moved to the production distance, the hold grows by one round-trip time per round trip. " +
			"An " + term("M/M/c", "mmc") + " queue (Erlang C: Kleinrock, Queueing Systems I, §3.5) then gives the smallest pool in which at most 1% of requests wait longer than the target " +
			"less a request's own p99 at that distance, using the upper end of the hold's 95% interval. " +
			"The model sizes the pool, not the host: it assumes the app and the database have the CPU for the rate. `make pool-sweep` measures capacities at a distance and prints the model beside them."}
	g := grid{ID: "t-pool", Caption: "The pool each persistent variant needs",
		Head: []string{"variant", "holds", "round trips", "hold here [95%]", "hold there", "p99 alone there", "pool", "its capacity [95%]"}}
	for _, x := range all {
		h, ad := x.hold, x.advice
		g.Rows = append(g.Rows, []cell{textCell(x.v.Key), textCell(h.Resource), numCell(h.RoundTrips, fmt.Sprintf("%.2g", h.RoundTrips)),
			numCell(h.Seconds, fmt.Sprintf("%s [%s, %s]", units.Seconds(h.Seconds), units.Seconds(h.Lo), units.Seconds(h.Hi))),
			numCell(ad.Hold.Seconds, units.Seconds(ad.Hold.Seconds)), numCell(ad.Hold.P99, units.Seconds(ad.Hold.P99)),
			numCell(float64(ad.Pool), poolText(ad)), numCell(ad.Capacity, capacityText(ad))})
	}
	s.Grids = []grid{g}
	for _, x := range all {
		if x.v.Kind == "raw" && x.v.Layer == "raw" {
			s.Paragraphs = append(s.Paragraphs, x.advice.Sentence(x.v.Key))
		}
	}
	return s
}

func capacityText(a poolsize.Advice) string {
	if a.Pool == 0 {
		return a.Why
	}
	return fmt.Sprintf("%.0f req/s [%.0f, %.0f]", a.Capacity, a.CapLo, a.CapHi)
}
