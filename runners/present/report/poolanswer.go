package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"dbbench/runners/define/matrix"
	"dbbench/runners/internal/words"
	"dbbench/runners/units"

	"dbbench/runners/judge/poolsize"
	"dbbench/runners/results"
)

// sized is one persistent variant's pool for the run's need (judge.Sized).
type sized struct {
	v      *results.Variant
	hold   poolsize.Hold // as measured
	advice poolsize.Advice
	pooler *poolsize.Advice // a transaction pooler's own pool, nil without a measurement
}

// pools are the variants judge sized for the run's need; nil when the run has no
// need or no link.
func (d *data) pools() (poolsize.Need, []sized) {
	p := d.judged.Pools
	if p == nil {
		return poolsize.Need{}, nil
	}
	var out []sized
	for _, s := range p.Sized {
		x := sized{v: s.Variant, hold: s.Hold, advice: s.Advice}
		if s.PoolerOK {
			x.pooler = &s.Pooler
		}
		out = append(out, x)
	}
	return p.Need, out
}

// poolAnswer answers "how large a pool?" per language and server on the run's first
// database: the setting of its raw driver, with its other layers' largest, at the stmt
// mode most of them share, sized for production's hosts, then what the check measured
// here. The section holds every variant's pool.
func (d *data) poolAnswer() answer {
	a := answer{ID: "q-pool", Title: "4. How large a pool"}
	need, all := d.pools()
	if all == nil {
		a.Sentence = "This run sized no pool (it has no zero-load " + term("hold times", "hold-time") + " or no pool need: runs before dbbench sized pools)."
		return a
	}
	db := d.run.FirstDatabase() // the first screen answers on the run's first server
	all = slices.DeleteFunc(all, func(s sized) bool { return s.v.Database != db })
	var families [][]sized
	var stmts []string
	for _, g := range poolGroups(all) {
		of := atCommonStmt(g)
		families = append(families, of)
		if !slices.Contains(stmts, of[0].v.Stmt) {
			stmts = append(stmts, of[0].v.Stmt)
		}
	}
	var chunks []string
	for _, of := range families {
		chunks = append(chunks, poolSetting(d.run, of, len(stmts) > 1))
	}
	if len(stmts) == 1 { // one stmt mode for all: said once
		chunks[0] = "at " + stmts[0] + ", " + chunks[0]
	}
	a.Sentence = fmt.Sprintf("For %s: %s.", needText(need), strings.Join(chunks, "; "))
	clients := need
	if pooler := d.run.Environment[results.EnvKey("pooler", db)]; pooler != "" {
		a.Sentence += " " + poolerText(d.run, pooler, need, families)
		clients.MaxConnections = 0 // the app pools are the pooler's clients, not the server's
	}
	if cur := currentText(d.run, clients, all); cur != "" {
		a.Sentence += " " + cur
	}
	a.Sentence += " " + checkSummary(d.run.PoolCheck, need)
	a.Evidence = checkText(d.run.PoolCheck) + " Each pool is the smallest that holds the rate, then (→) the smallest that stays ≤ 70% busy; from each variant's " + term("hold time", "hold-time") +
		" alone, its CPU per request and an " + term("M/M/c", "mmc") + " model, corrected for holds that are mostly round trips, whose holds stretch as the hosts' CPU fills; `make pool-sweep` measures every pool. " +
		"What the pools are sized for is set by " + needFlags(need) + "."
	return a
}

// needText echoes what the pools are sized for (the flags that change it are in the
// section, needFlags: the first screen is short).
func needText(n poolsize.Need) string {
	rtt := n.RTT.String()
	if n.RTT == 0 {
		rtt = "0 ms"
	}
	s := fmt.Sprintf("%d instances × %.0f req/s, p99 ≤ %v, %s away", n.Instances, n.Rate, n.P99, rtt)
	if n.AppCores > 0 {
		s += fmt.Sprintf(", %d app, %d database cores", n.AppCores, n.DBCores)
	}
	return fmt.Sprintf("%s, max_connections %d", s, n.MaxConnections)
}

// needFlags are the flags that change what the pools are sized for.
func needFlags(n poolsize.Need) string {
	flags := "`--app-instances`, `--pool-rate`, `--pool-p99`, `--pool-rtt`"
	if n.AppCores > 0 {
		flags += ", `--app-cores`/`--db-cores`"
	}
	return flags + " and `--max-connections`"
}

// poolSetting is one family's answer in its own setting: "php-fpm at interpolate:
// `pm.max_children = 3` (2 the fewest that hold; Eloquent needs 6)", its stmt mode
// named when withStmt.
func poolSetting(r *results.Run, of []sized, withStmt bool) string {
	var raw *sized
	most := of[0]
	for i, s := range of {
		if s.v.Layer == r.BaselineOf(s.v) && raw == nil {
			raw = &of[i]
		}
		if advised(s.advice) > advised(most.advice) {
			most = s
		}
	}
	if raw == nil {
		raw = &most
	}
	s := familyName(raw.v)
	if withStmt {
		s += " at " + raw.v.Stmt
	}
	s += ": " + settingOf(raw.hold, raw.advice)
	var notes []string
	if raw.advice.Recommended > raw.advice.Pool && raw.advice.Pool > 0 {
		notes = append(notes, fmt.Sprintf("%d the fewest that hold", raw.advice.Pool))
	}
	if advised(most.advice) > advised(raw.advice) {
		notes = append(notes, fmt.Sprintf("%s needs %d", shortLibrary(most.v), advised(most.advice)))
	}
	for _, s := range of {
		if s.advice.Pool == 0 && s.v != raw.v { // raw's own says so in its setting
			notes = append(notes, shortLibrary(s.v)+": no pool holds")
		}
	}
	if len(notes) > 0 {
		s += " (" + strings.Join(notes, "; ") + ")"
	}
	return s
}

// advised is the pool recommended, with headroom when the model gives it.
func advised(a poolsize.Advice) int { return max(a.Pool, a.Recommended) }

// settingOf is the pool in the setting that applies it: "`SetMaxOpenConns(3)`".
func settingOf(h poolsize.Hold, a poolsize.Advice) string {
	if a.Pool == 0 {
		return "no pool holds"
	}
	n := advised(a)
	switch h.Resource {
	case poolsize.Connection:
		return fmt.Sprintf("`SetMaxOpenConns(%d)`", n)
	case poolsize.FPMChild:
		return fmt.Sprintf("`pm.max_children = %d`", n)
	}
	return fmt.Sprintf("`worker.php --workers %d`", n)
}

// familyName is "Go", "php-fpm" or "resident workers": who holds a pool.
func familyName(v *results.Variant) string {
	if v.Lang == "php" && v.Server != "" {
		return serverName(v.Server)
	}
	return langName(v.Lang)
}

// currentText says what the user's present pool does at the rate, per family's raw
// driver (--pool-current).
func currentText(r *results.Run, n poolsize.Need, all []sized) string {
	if n.Current <= 0 {
		return ""
	}
	var parts []string
	for _, g := range poolGroups(all) {
		for _, s := range atCommonStmt(g) {
			if s.v.Layer == r.BaselineOf(s.v) {
				a := s.advice
				a.Need.MaxConnections = n.MaxConnections // 0 through a pooler: no server limit
				parts = append(parts, fmt.Sprintf("%s %s", familyHead(s.v), a.Verdict(n.Current)))
			}
		}
	}
	return fmt.Sprintf("Your pool of %d (`--pool-current`): %s.", n.Current, strings.Join(parts, "; "))
}

// poolerText is how a transaction pooler between the apps and the server changes the
// answer: the app pools above are its clients, and its own pool, the server's
// connections, is what max_connections bounds, sized for every instance's rate
// together from each family's baseline (poolsize.ThroughPooler).
func poolerText(r *results.Run, pooler string, n poolsize.Need, families [][]sized) string {
	name, settings, _ := strings.Cut(pooler, ",")
	var parts []string
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, of := range families {
		i := slices.IndexFunc(of, func(s sized) bool { return s.v.Layer == r.BaselineOf(s.v) })
		if i < 0 {
			continue
		}
		if of[i].pooler != nil {
			a, k := *of[i].pooler, "no pool holds"
			if a.Pool > 0 {
				k = strconv.Itoa(advised(a))
				lo, hi = min(lo, a.Hold.Seconds), max(hi, a.Hold.Seconds)
			}
			if a.Pool > 0 && advised(a) > n.MaxConnections {
				k += ", over max_connections"
			}
			parts = append(parts, familyName(of[i].v)+" "+k)
		}
	}
	s := fmt.Sprintf("Through %s (%s here), the %d instances' pools are its clients (its `max_client_conn` at least %d × the pool), and max_connections bounds its own pool, the server's connections, instead",
		name, strings.TrimSpace(settings), max(1, n.Instances), max(1, n.Instances))
	if len(parts) == 0 {
		return s + "."
	}
	s = fmt.Sprintf("%s: `default_pool_size` for %.0f req/s together: %s", s, n.Rate*float64(max(1, n.Instances)), strings.Join(parts, ", "))
	if math.IsInf(lo, 1) { // no family's pool holds: no wait to quote
		return s + "."
	}
	wait := units.Seconds(lo)
	if hi > lo {
		wait += "–" + units.Seconds(hi)
	}
	return fmt.Sprintf("%s, from each get's wait for its answers here (%s): an upper bound, as that wait holds the hop to the pooler too.", s, wait)
}

// checkText says what the check measured on this machine, or why it did not run.
func checkText(pc *results.PoolCheck) string {
	switch {
	case pc == nil:
		return "Modelled, not checked (runs before the check)."
	case pc.Skipped != "":
		return "Modelled, not checked: " + pc.Skipped + "."
	case len(pc.Families) == 0 || pc.Error != "" && len(pc.Families[0].Points) == 0:
		return "The check measured nothing: " + cmp.Or(pc.Error, "no family") + "."
	}
	var parts []string
	for _, f := range pc.Families {
		parts = append(parts, checkedFamily(pc, f))
	}
	return fmt.Sprintf("Checked here, every role on this machine's cores, open loop at %.0f req/s evenly spaced with %s to the database (%s measured): %s. "+
		"Production's requests arrive at random and queue sooner; the sizes above allow for that, the check's pools do not.",
		pc.Rate, pc.RTT, units.Seconds(pc.Path), strings.Join(parts, "; "))
}

// checkSummary is the check in a few words for the first screen: per family, the
// model's pool and the one below, held or not, and how far the model was short; the
// probes' p99s are in checkText, at the top of the pool section. The check measures the
// run's first server only (sweep.CheckTargets), the one the first screen answers on.
func checkSummary(pc *results.PoolCheck, need poolsize.Need) string {
	if pc == nil || pc.Skipped != "" || len(pc.Families) == 0 || pc.Error != "" && len(pc.Families[0].Points) == 0 {
		return checkText(pc)
	}
	var parts []string
	for _, f := range pc.Families {
		v := familyVariant(f.Family)
		model, below, first := checkedPoints(f)
		name := familyName(v)
		switch {
		case model == nil:
			parts = append(parts, name+" not measured")
		case model.Held && below != nil && below.Held:
			parts = append(parts, fmt.Sprintf("%s %d held (%d too)", name, model.Pool, below.Pool))
		case model.Held && below != nil:
			parts = append(parts, fmt.Sprintf("%s %d held, %d did not", name, model.Pool, below.Pool))
		case model.Held:
			parts = append(parts, fmt.Sprintf("%s %d held", name, model.Pool))
		case first != nil:
			parts = append(parts, fmt.Sprintf("%s %d did not, %d held (model %d short)", name, model.Pool, first.Pool, first.Pool-f.Model))
		default:
			parts = append(parts, fmt.Sprintf("%s none held up to %d", name, f.Points[len(f.Points)-1].Pool))
		}
	}
	at := "" // the need's rate and distance, echoed before, unless the check had others
	if pc.Rate != need.Rate || pc.RTT.D() != need.RTT {
		at = fmt.Sprintf(" at %.0f req/s, %s away", pc.Rate, pc.RTT)
	}
	return fmt.Sprintf("Checked here%s: %s.", at, strings.Join(parts, "; "))
}

// familyVariant reads a family's key ("lang=php/server=fpm/layer=raw/…") into the
// fields a name needs (matrix.ParseFamily; a family it cannot read names nothing).
func familyVariant(fam string) *results.Variant {
	v, _ := matrix.ParseFamily(fam)
	return &results.Variant{Variant: v}
}

// checkedFamily is "Go raw: pool 2 held (p99 4.1 ms), 1 did not (p99 120 ms)", and when
// the model's pool failed, how far it was short.
func checkedFamily(pc *results.PoolCheck, f *results.CheckedFamily) string {
	name := familyShort(f.Family)
	model, below, first := checkedPoints(f)
	if model == nil {
		return name + ": not measured"
	}
	s := fmt.Sprintf("%s at the model's pool for this machine, %d, %s (p99 %s)", name, model.Pool, heldWord(model), p99s(model))
	if below != nil {
		s += fmt.Sprintf(", %d %s (p99 %s)", below.Pool, heldWord(below), p99s(below))
	}
	switch {
	case model.Held:
	case first != nil:
		s += fmt.Sprintf("; %d held (p99 %s): the model was short by %d", first.Pool, p99s(first), first.Pool-f.Model)
	default:
		s += fmt.Sprintf("; none up to %d held: the model was short by more than %d", f.Points[len(f.Points)-1].Pool, f.Points[len(f.Points)-1].Pool-f.Model)
	}
	return s
}

// checkedPoints are a family's probes at the model's pool, at the one below it, and
// the first pool that held.
func checkedPoints(f *results.CheckedFamily) (model, below, first *results.CheckedPoint) {
	for _, p := range f.Points {
		switch {
		case p.Pool == f.Model:
			model = p
		case p.Pool < f.Model:
			below = p
		}
		if p.Held && first == nil {
			first = p
		}
	}
	return model, below, first
}

func heldWord(p *results.CheckedPoint) string {
	if p.Held {
		return "held"
	}
	return "did not"
}

// p99s is each probe's p99 in ms with its outcome, "4.1 ✓, 3.9 ✓, 32.1 ✗ (past
// capacity)": a probe can fail on its rate or backlog with a p99 under the target.
func p99s(p *results.CheckedPoint) string {
	var out []string
	cause := ""
	i := 0
	for _, pr := range p.Probes {
		if pr.Rep <= 0 || i >= len(p.P99s) {
			continue
		}
		mark := "✓"
		switch {
		case pr.Inconclusive:
			mark = "?"
		case !pr.Pass:
			mark = "✗"
			if cause == "" {
				cause, _, _ = strings.Cut(pr.Why, ":")
			}
		}
		out = append(out, fmt.Sprintf("%.1f %s", 1e3*p.P99s[i], mark))
		i++
	}
	if len(out) == 0 {
		return "none measured"
	}
	s := strings.Join(out, ", ") + " ms"
	if cause != "" && !strings.HasPrefix(cause, "p99 ") {
		s += ", " + cause
	}
	return s
}

// familyShort is "go/nethttp/raw/interpolate" of a family key.
func familyShort(fam string) string {
	var parts []string
	for _, p := range matrix.Parts(fam) {
		if p.Name != "" && p.Name != "conn" {
			parts = append(parts, p.Value)
		}
	}
	return strings.Join(parts, "/")
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
	var stmts []string
	for _, s := range g {
		stmts = append(stmts, s.v.Stmt)
	}
	best := poolsize.CommonStmt(stmts)
	return slices.DeleteFunc(slices.Clone(g), func(s sized) bool { return s.v.Stmt != best })
}

// familyHead is "Go (interpolate)" or "php-fpm (interpolate)", with " on MySQL 8.0"
// for a variant on a second database server.
func familyHead(v *results.Variant) string {
	on := ""
	if v.Database != "" {
		on = " on " + dbName(v)
	}
	return fmt.Sprintf("%s (%s)%s", familyName(v), v.Stmt, on)
}

// poolText is the smallest pool that holds, and the one with headroom when larger.
func poolText(a poolsize.Advice) string {
	if a.Pool == 0 {
		return "none holds"
	}
	if a.Recommended > a.Pool {
		return fmt.Sprintf("%d → %d", a.Pool, a.Recommended)
	}
	return fmt.Sprint(a.Pool)
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
	var holds []poolsize.Hold
	for _, x := range all {
		holds = append(holds, x.hold)
	}
	conn, child := poolsize.HowTimed(holds)
	s.Intro = []string{
		say("pool-sized", map[string]any{"Assumptions": need.Assumptions(),
			"Path": units.Seconds(link.Path), "Direct": units.Seconds(link.Direct), "Added": units.Seconds(link.Added),
			"Probe": words.A(d.run.Topology.DBProbe())}),
		say("pool-how", map[string]any{"HowHeld": conn, "FPMHeld": child, "Tail": poolsize.Tail}),
	}
	g := grid{ID: "t-pool", Caption: "The pool each persistent variant needs",
		Head: []string{"variant", "holds", "round trips", "hold here [95%]", "hold there", "p99 alone there", "pool", "its capacity [95%]"}}
	for _, x := range all {
		h, ad := x.hold, x.advice
		g.Rows = append(g.Rows, []cell{textCell(x.v.Key), textCell(string(h.Resource)), numCell(h.RoundTrips, fmt.Sprintf("%.2g", h.RoundTrips)),
			numCell(h.Seconds, units.SecondsEstimate(h.Seconds, h.Lo, h.Hi)),
			numCell(ad.Hold.Seconds, units.Seconds(ad.Hold.Seconds)), numCell(ad.Hold.P99, units.Seconds(ad.Hold.P99)),
			numCell(float64(ad.Pool), poolText(ad)), numCell(ad.Capacity, capacityText(ad))})
	}
	s.Grids = []grid{g}
	for _, x := range all {
		if x.v.Layer == d.run.BaselineOf(x.v) {
			s.Paragraphs = append(s.Paragraphs, x.advice.Sentence(x.v.Key))
		}
	}
	return s
}

func capacityText(a poolsize.Advice) string {
	if a.Pool == 0 {
		return a.Why
	}
	return units.WholeEstimate(a.Capacity, a.CapLo, a.CapHi, "req/s")
}
