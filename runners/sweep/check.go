package sweep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/poolsize"
	"dbbench/runners/measure/run"
	"dbbench/runners/results"
)

// CheckPlan measures every point (a family at one pool) Probes times at one open-loop
// rate, each round visiting the points in a new random order, so that a drift of the
// machine reaches all alike. A point holds when every probe that decided held: its
// p99 within SLO, its errors within the run's threshold, the rate kept (judge). A probe
// whose generator fell behind is measured again, as in a sweep (Retries).
type CheckPlan struct {
	Rate            float64
	SLO             time.Duration
	Probes          int
	OpenConnections int
	Seed            uint64
}

// Measure implements run.Plan.
func (pl *CheckPlan) Measure(ctx context.Context, p *run.Phase) error {
	rng := rand.New(rand.NewPCG(pl.Seed, 0x636865636b)) // "check"
	points := p.Variants()
	o := p.Options()
	p.SetPlanned(len(points)*pl.Probes, sliceEstimate(o.Duration, o.LeadIn))
	for _, v := range points {
		v.Capacity = &results.Capacity{SLO: pl.SLO.Seconds()}
	}
	for round := 1; round <= pl.Probes; round++ {
		p.SetStatus(func() string {
			return fmt.Sprintf("pool check at %.0f req/s, p99 ≤ %v, probe %d of %d", pl.Rate, pl.SLO, round, pl.Probes)
		})
		for _, v := range shuffled(rng, points) {
			if !v.Valid {
				continue
			}
			if _, _, err := probeAt(ctx, p, v, run.Load{Rate: pl.Rate, Connections: pl.OpenConnections}, pl.SLO, 0); err != nil {
				return err
			}
		}
	}
	return nil
}

// CheckOptions configure a pool check after a run.
type CheckOptions struct {
	// Run is what the check's run shares with the run it checks: Root, BinDir, Matrix,
	// DB, Seed, KeepAlive, Log. The rest is set here.
	Run    run.Options
	Need   poolsize.Need
	Cores  int // this machine's, which every role shares
	Probes int
	Dir    string // the checked run's directory; the check's run goes in pool-check/
}

// DefaultCheckProbes is how many probes each point gets: three, so that one probe that
// lands in a slow episode of the machine shows as a failure among passes.
const DefaultCheckProbes = 3

// Checked is a family to check: its raw driver variant and the pool the model
// predicts for this machine.
type Checked struct {
	Variant matrix.Variant
	Model   int
}

// CheckTargets picks what the fourth answer names from a run: per language and
// server, the raw driver at persistent connections at the stmt mode most of the
// group's persistent variants share (as the report groups them, runners/present/report),
// with the model's pool for this machine. path is the round trip through the check's
// delay proxy (delay.RoundTrip), which its requests pay; 0: not measured, need.RTT.
func CheckTargets(r *results.Run, need poolsize.Need, cores int, path float64) []Checked {
	if r.Link == nil {
		return nil
	}
	// sizable is what the fourth answer sizes (runners/present/report's pools), on the server it
	// answers on and Check measures.
	first := r.FirstDatabase()
	sizable := func(v *results.Variant) bool {
		return v.Valid && v.DB && v.Conn == "persistent" && v.Op == "" && v.Rev == "" && v.Database == first
	}
	type group struct{ lang, server string }
	stmts := map[group][]string{}
	var order []group
	for _, v := range r.Variants {
		if !sizable(v) {
			continue
		}
		g := group{v.Lang, v.Server}
		if stmts[g] == nil {
			order = append(order, g)
		}
		stmts[g] = append(stmts[g], v.Stmt)
	}
	var out []Checked
	for _, g := range order {
		common := poolsize.CommonStmt(stmts[g])
		i := slices.IndexFunc(r.Variants, func(v *results.Variant) bool {
			return sizable(v) && v.Lang == g.lang && v.Server == g.server && v.Stmt == common && v.Layer == r.BaselineOf(v)
		})
		if i < 0 {
			continue
		}
		v := r.Variants[i]
		h, ok := poolsize.Of(v, r.Link)
		if !ok {
			continue
		}
		h, at := throughProxy(h, need, path)
		here, hosts := at.Here(cores)
		a := poolsize.SizeOn(h, here, hosts)
		mv := matrix.Variant{Lang: v.Lang, Server: v.Server, Layer: v.Layer, Stmt: v.Stmt, Conn: v.Conn}
		out = append(out, Checked{Variant: mv, Model: a.Pool})
	}
	return out
}

// throughProxy moves h to the check's path, the proxy's sleep need.RTT and its hop on
// top, and marks the sleep: on this machine's shared cores the hop is CPU work that
// stretches with the rest of the hold (poolsize's wire).
func throughProxy(h poolsize.Hold, need poolsize.Need, path float64) (poolsize.Hold, poolsize.Need) {
	sleep := need.RTT.Seconds()
	if path <= sleep {
		return h, need
	}
	need.RTT = secondsToDuration(path)
	h = h.At(need.RTT)
	h.Added = sleep
	return h, need
}

// Ladder is the pools a check probes around the model's n: the one below, n, the one
// above, and twice n, so that a model that was short still finds a pool that holds.
func Ladder(n int) []int {
	if n < 1 {
		return nil
	}
	out := []int{max(1, n-1), n, n + 1, 2 * n}
	slices.Sort(out)
	return slices.Compact(out)
}

// Check measures the checked families at their ladders and returns what it found.
// Whatever happens, the result says it: an error is kept in it, never lost.
func Check(ctx context.Context, o CheckOptions, targets []Checked) *results.PoolCheck {
	pc := &results.PoolCheck{Rate: o.Need.Rate, SLO: o.Need.P99.Seconds(), RTT: results.Duration(o.Need.RTT), Probes: o.Probes, Dir: "pool-check"}
	var list []matrix.Variant
	for _, t := range targets {
		for _, n := range Ladder(t.Model) {
			v := t.Variant
			v.Pool = n
			list = append(list, v)
		}
		pc.Families = append(pc.Families, &results.CheckedFamily{Family: t.Variant.Family(), Model: t.Model})
	}
	if len(list) == 0 {
		pc.Skipped = "no family had a pool to check"
		return pc
	}
	ro := o.Run
	ro.List, ro.Out, ro.RTT = list, filepath.Join(o.Dir, pc.Dir), o.Need.RTT
	ro.Variants, ro.Budget, ro.Profile, ro.PoolNeed, ro.Revisions = nil, 0, run.ProfileOff, nil, nil
	// The first screen answers the pool on the run's first server: the check measures
	// that one (on two, their probes would share one family's points).
	ro.DBs = ro.DBs[:min(len(ro.DBs), 1)]
	ro.Warmup, ro.Duration, ro.Reps, ro.RoundtripRequests = 300*time.Millisecond, time.Second, 1, 20
	ro.Preset = &matrix.Preset{Name: "pool-check", Warmup: ro.Warmup, Duration: ro.Duration, Reps: 1, Connections: 1}
	ro.Plan = &CheckPlan{Rate: o.Need.Rate, SLO: o.Need.P99, Probes: o.Probes, OpenConnections: 256, Seed: ro.Seed}
	fmt.Fprintf(ro.Log, "pool check: %d families at %d pools, %.0f req/s each, %v added to the database, into %s\n",
		len(targets), len(list), o.Need.Rate, o.Need.RTT, ro.Out)
	res, err := run.Run(ctx, ro)
	if err != nil {
		pc.Error = err.Error()
	}
	if res != nil {
		settleCheck(pc, res)
	}
	return pc
}

// settleCheck fills each family's points from the check's run.
func settleCheck(pc *results.PoolCheck, res *results.Run) {
	if res.Link != nil {
		pc.Path = res.Link.Path
	}
	for _, v := range res.Variants {
		fam := familyOf(v)
		i := slices.IndexFunc(pc.Families, func(f *results.CheckedFamily) bool { return f.Family == fam })
		if i < 0 || v.Capacity == nil {
			continue
		}
		pt := &results.CheckedPoint{Pool: v.Pool, Probes: v.Capacity.Probes}
		decided, failedAny := 0, false
		for _, pr := range v.Capacity.Probes {
			if rep := v.Rep(pr.Rep); rep != nil && pr.Rep > 0 {
				pt.P99s, pt.Rates = append(pt.P99s, rep.P99), append(pt.Rates, rep.QPS)
			}
			if pr.Inconclusive {
				continue
			}
			decided++
			if !pr.Pass {
				failedAny = true
				if pt.Why == "" {
					pt.Why = pr.Why
				}
			}
		}
		if !v.Valid && pt.Why == "" {
			pt.Why = "invalid: " + v.InvalidReason
		}
		pt.Held = v.Valid && decided > 0 && !failedAny
		f := pc.Families[i]
		f.Points = append(f.Points, pt)
		slices.SortFunc(f.Points, func(a, b *results.CheckedPoint) int { return a.Pool - b.Pool })
	}
}
