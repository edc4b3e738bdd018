// Package run is one whole benchmark run: provision the database, then for every
// variant verify its target and count its round trips, then measure repetitions
// interleaved across variants (A B C A B C …), writing results as they come.
package run

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"time"

	"dbbench/fixtures"
	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/findings"
	"dbbench/runners/judge/questions"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/remote"
	"dbbench/runners/measure/servers"
	"dbbench/runners/measure/target"
	"dbbench/runners/measure/topology"
	"dbbench/runners/measure/yardstick"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// Options configure a run. Zero fields take the preset's values.
type Options struct {
	Selection // what is measured: the matrix's variants and the servers
	Shape     // the load each slice sends
	Pairing   // how slices pair, and when the run stops
	Checks    // what the run records beside the load, and what makes a variant invalid
	Placement // where the roles run and how far apart
	Output    // where the results go and what the terminal says
	// Versus, when set, is dbbench ab's two revisions: zero in every other run.
	Versus
}

// Selection is what a run measures.
type Selection struct {
	Root     string // the repository
	BinDir   string // where gotarget is; "" means Root/bin
	Matrix   *matrix.Matrix
	Preset   *matrix.Preset
	Variants *regexp.Regexp // keep only variants whose key matches; nil keeps all
	// List, when set, is the variants to run instead of the preset's (sweeps build their
	// own); the preset then only supplies defaults. Variants still filters it.
	List []matrix.Variant
	// DB is the database to bring up; with DBs, the options each server starts with.
	DB provider.Options
	// DBs are the servers to measure on, as the matrix names them (mariadb, mysql):
	// every variant on each, side by side, each against its own embedded server; nil
	// is the matrix's first.
	DBs []string
}

// Shape is the load a slice sends and how long it lasts.
type Shape struct {
	// Warmup is the load each target gets after it starts; Duration the measured time of
	// one slice, LeadIn the load sent before each slice and not measured (the target was
	// idle while others were measured); Reps the slices of a variant in no comparison.
	Warmup      time.Duration
	Duration    time.Duration
	LeadIn      time.Duration
	Reps        int
	Connections int
	Rate        float64 // requests per second, open loop; 0 is closed loop
	// Poisson spaces the open loop's sends by exponential gaps (loadgen.Config.Poisson).
	Poisson   bool
	KeepAlive bool
	Seed      uint64
}

// Checks is what a run records beside the load, and what makes a variant invalid.
type Checks struct {
	// RoundtripRequests are sent one at a time while the general log is on.
	RoundtripRequests int
	// MaxErrorRate above which a variant is invalid (fraction of requests).
	MaxErrorRate float64
	// Profile says whether each variant gets one profiled slice of ProfileTime after
	// its measured ones (profile.go): as the preset says, on or off.
	Profile     Profiling
	ProfileTime time.Duration
	// PoolNeed is the production load the report sizes pools for; nil: none.
	PoolNeed *results.PoolNeed
}

// Output is where a run's results go and what it says while it runs.
type Output struct {
	Out string // run directory; created
	Log io.Writer
	// Verbose progress lines name every variant of a block, not only the first.
	Verbose bool
	// Command is the command line that made the run, for its report (password masked).
	Command string
}

// Pairing is how a run measures and pairs the slices of a comparison, and when it
// stops (README.md): Plan, what measures each language once its targets are up; Design (Interleave, Walk or Alternate); Turn, the shortest turn of a variant in an
// interleaved block; Budget, the time for all the slices of the run. A comparison stops
// once the 95% intervals of its QPS and app CPU ratios are within ±Precision (0.02) and
// it has MinPairs pairs, or once it has MaxPairs. The budget never cuts a comparison
// below MinPairs.
type Pairing struct {
	// Plan measures each language once its targets are up; nil is Pairs, the paired
	// measurement of the comparisons. Sweeps bring their own.
	Plan      Plan
	Design    string
	Turn      time.Duration
	Budget    time.Duration
	Precision float64
	MinPairs  int
	MaxPairs  int
}

// Placement is where the roles run and how far apart.
type Placement struct {
	// TargetDBAddr, when set, gets the database's host:port once it runs and returns the
	// address targets dial instead (the rtt sweep's delay proxy), listening on host (an
	// address of the runner's that the targets reach). The runner's own connections stay
	// direct, so sampling the server does not pay the distance.
	TargetDBAddr func(host, dbAddr string) (string, error)
	// Topology is where the roles run (runners/measure/topology): "" or loopback, all on this
	// host's 127.0.0.1; netns, each in a network namespace of its own behind a bridge.
	Topology results.TopologyKind
	// AppHost, when set (ssh://user@host[:port]), runs the targets on that machine,
	// reached with SSH as SSH says; Go targets only. The load generator stays here; the
	// database is embedded here, at the address the host sees this one at, or a dsn.
	AppHost string
	SSH     remote.Options
	// RTT is a round-trip time to add between the targets and the database (half each
	// way, runners/measure/delay), as a network hop in production would: the distance a pool is
	// sized for. Ignored when TargetDBAddr is set.
	RTT time.Duration
}

// Versus is what dbbench ab measures: A and B, every variant measured once per revision
// against the same database, its comparisons the revision pairs (questions.Rev), and
// the threshold the report's verdicts are judged at.
type Versus struct {
	Revisions []Revision
	Margin    float64
}

// Profiling is whether a run profiles its variants.
type Profiling int

const (
	// ProfileAsPreset profiles when the preset gives a profile length (smoke does).
	ProfileAsPreset Profiling = iota
	ProfileOn                 // --profile
	ProfileOff                // --profile=false
)

// ProfilingOf is the flag's choice: as the preset says unless given.
func ProfilingOf(given, on bool) Profiling {
	switch {
	case !given:
		return ProfileAsPreset
	case on:
		return ProfileOn
	}
	return ProfileOff
}

// Defaults of the paired measurement (README.md says why these).
const (
	DefaultLeadIn    = 150 * time.Millisecond
	DefaultPrecision = findings.Margin // a comparison is measured until its verdict at the margin is clear
	DefaultMaxPairs  = 60
	// DefaultProfileTime gives a few hundred CPU samples at pprof's 100 Hz.
	DefaultProfileTime = 3 * time.Second
)

// ErrInterrupted is returned when the context ended a run or a soak early; what was
// measured until then is kept (the run directory, soak.json). The error says which:
// "run interrupted: …", "soak interrupted: …".
var ErrInterrupted = errors.New("interrupted")

// Ending is how a run or a soak (what) that returned err under ctx ended, as its file
// records it: "complete"; "interrupted", with err wrapped in ErrInterrupted; or
// "failed", with err as it was.
func Ending(ctx context.Context, what string, err error) (results.Status, error) {
	switch {
	case err == nil:
		return results.Complete, nil
	case ctx.Err() != nil:
		return results.Interrupted, fmt.Errorf("%s %w: %v", what, ErrInterrupted, err)
	}
	return results.Failed, err
}

// Defaults fills the options left at zero: from the preset where it has a value, else
// from the runner's defaults. It is the one place a run's defaults are decided: Run
// calls it, and the command's test checks --help against it.
func (o *Options) Defaults() {
	p := o.Preset
	if o.Warmup == 0 {
		o.Warmup = p.Warmup
	}
	if o.Duration == 0 {
		o.Duration = p.Duration
	}
	if o.Reps == 0 {
		o.Reps = p.Reps
	}
	if o.Budget == 0 {
		o.Budget = p.Budget
	}
	if o.LeadIn == 0 {
		o.LeadIn = DefaultLeadIn
	}
	if o.Design == "" {
		o.Design = Interleave
		if o.Rate > 0 { // turns need a closed loop
			o.Design = Walk
		}
	}
	if o.Turn == 0 {
		o.Turn = DefaultTurn
	}
	if o.Precision == 0 {
		o.Precision = cmp.Or(p.Precision, DefaultPrecision)
	}
	if o.MinPairs == 0 {
		o.MinPairs = stats.MinPairs
	}
	if o.MaxPairs == 0 {
		o.MaxPairs = DefaultMaxPairs
	}
	if p.Profile > 0 && o.Profile != ProfileOff {
		o.Profile = ProfileOn
		o.ProfileTime = cmp.Or(o.ProfileTime, p.Profile)
	}
	if o.Profile == ProfileAsPreset {
		o.Profile = ProfileOff
	}
	if o.ProfileTime == 0 {
		o.ProfileTime = DefaultProfileTime
	}
	if o.Connections == 0 {
		o.Connections = p.Connections
	}
	if o.RoundtripRequests == 0 {
		o.RoundtripRequests = 100
	}
	if o.MaxErrorRate == 0 {
		o.MaxErrorRate = 0.001
	}
	if o.Log == nil {
		o.Log = os.Stderr
	}
	if o.BinDir == "" {
		o.BinDir = filepath.Join(o.Root, "bin")
	}
}

// Variants lists what a run with these options measures.
func (o *Options) variants() []matrix.Variant {
	list := o.List
	if list == nil {
		list = o.Matrix.Expand(o.Preset)
	}
	var out []matrix.Variant
	for _, v := range list {
		if o.Variants == nil || o.Matrix.Match(o.Variants, v) {
			out = append(out, v)
		}
	}
	return o.perRevision(o.perDB(out))
}

// severalOps says whether the run measures an op besides get: then a get variant's
// benchmark name spells op=get out, so that benchstat slices by op (its key stays as
// it was, for baselines and patterns).
func severalOps(vs []matrix.Variant) bool {
	return slices.ContainsFunc(vs, func(v matrix.Variant) bool { return v.Op != "" })
}

// runner holds one run's state.
type runner struct {
	o        Options
	vs       []matrix.Variant
	specs    map[string]matrix.Spec // by variant key
	res      *results.Run
	byKey    map[string]*results.Variant
	dbs      map[string]*database // by the variants' Database (databases.go)
	dbOrder  []string
	secrets  string // the private directory of the DSN files
	topo     *topology.Topology
	progress *progress
	writer   *writer
	dead     error // set once a database died: the run ends, even once it is back
	// explained are the causes of log-only commands already said (matrix.yaml's why).
	explained map[string]bool
}

// Run performs the run and returns its results. The results are also in o.Out:
// results.json, bench.txt and histograms, each replaced atomically after every step.
func Run(ctx context.Context, o Options) (*results.Run, error) {
	o.Defaults()
	if o.Design == Interleave && o.Rate > 0 {
		return nil, fmt.Errorf("run: the interleave design takes turns in closed loop; at a rate of %g req/s use walk or alternate", o.Rate)
	}
	if err := o.checkRevisions(); err != nil {
		return nil, err
	}
	if err := o.checkDBs(); err != nil {
		return nil, err
	}
	vs := o.variants()
	if len(vs) == 0 {
		return nil, fmt.Errorf("no variant of preset %s matches --variants %v", o.Preset.Name, o.Variants)
	}
	if o.AppHost != "" {
		if err := goOnly(vs); err != nil {
			return nil, err
		}
		if o.Profile == ProfileOn { // perf and the profiled slice read this host's processes
			fmt.Fprintln(o.Log, "note: no profiles with --app-host: the profiler reads this host's processes")
			o.Profile = ProfileOff
		}
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	specs, err := o.specs(vs)
	if err != nil {
		return nil, err
	}
	if o.DB.OrdersPerUser == 0 && readsOrders(specs) {
		o.DB.OrdersPerUser = fixtures.DefaultOrdersPerUser
	}
	r := &runner{o: o, vs: vs, specs: specs, byKey: map[string]*results.Variant{}, explained: map[string]bool{}}
	r.res = &results.Run{
		Schema:      results.Schema,
		Command:     o.Command,
		Started:     time.Now().UTC(),
		Status:      results.Running,
		Environment: o.environment(vs),
		Langs:       langFacts(o.Matrix, vs),
		AB:          o.ab(),
		Settings: results.Settings{
			Preset: o.Preset.Name, Provider: o.DB.KindName(), DBs: o.DBs, Rows: o.DB.Rows, OrdersPerUser: o.DB.OrdersPerUser, ServerMaxConnections: o.DB.MaxConnections,
			Connections: o.Connections, Rate: o.Rate, Poisson: o.Poisson && o.Rate > 0, KeepAlive: o.KeepAlive,
			Warmup: o.Warmup.String(), Duration: o.Duration.String(), Reps: o.Reps, Seed: o.Seed,
			RoundtripRequests: o.RoundtripRequests, MaxErrorRate: o.MaxErrorRate, PoolNeed: o.PoolNeed,
			Pairing: &results.Pairing{Design: o.Design, Slice: o.Duration.String(), LeadIn: o.LeadIn.String(), Turn: o.turnSetting(),
				Precision: o.Precision, MinPairs: o.MinPairs, MaxPairs: o.MaxPairs, Budget: o.Budget.String()},
		},
	}
	opKeys := severalOps(vs)
	for _, v := range vs {
		spec := specs[v.Key()]
		layer := spec.Layer
		rv := &results.Variant{
			Name:          v.Name(),
			Key:           v.Key(),
			Variant:       v,
			Rows:          spec.Op.Rows,
			Texts:         spec.Op.Texts,
			Orders:        spec.Op.Orders,
			Fetch:         spec.Op.Fetch,
			FetchAPI:      layer.FetchAPI[spec.Op.Fetch],
			DatabaseTitle: o.Matrix.DBs[o.Matrix.DBName(v)].Title,
			DB:            layer.DB,
			Kind:          layer.Kind,
			Library:       layer.Library,
			Valid:         true,
			Reps:          []*results.Repetition{},
		}
		protocol := o.Matrix.ProtocolOf(o.Matrix.DBName(v))
		if ref := layer.RefOn(protocol); layer.DB && ref != questions.RefStmt {
			rv.StmtRef = ref
		}
		if b := o.Matrix.Langs[v.Lang].BaselineOn(protocol); layer.DB && b != o.Matrix.Langs[v.Lang].Baseline {
			rv.LayerRef = b
		}
		rv.Tuned = tunedOf(o.Matrix.Langs[v.Lang], layer, v, protocol)
		if opKeys && layer.DB {
			rv.Name = matrix.Prefix + "/" + v.OpKey() // benchstat -col /op then has get too
		}
		r.res.Variants = append(r.res.Variants, rv)
		r.byKey[v.Key()] = rv
	}
	r.writer = &writer{dir: o.Out, run: r.res}
	r.progress = newProgress(o.Log, len(vs))
	err = r.run(ctx)
	r.res.Finished = time.Now().UTC()
	r.res.Status, err = Ending(ctx, "run", err)
	if err != nil {
		r.res.Error = err.Error()
	}
	if werr := r.writer.flush(); werr != nil && err == nil {
		err = werr
	}
	return r.res, err
}

// goOnly refuses a variant that is not Go: only Go targets run on an app host.
func goOnly(vs []matrix.Variant) error {
	for _, v := range vs {
		if v.Lang != "go" {
			return fmt.Errorf("--app-host runs Go targets only, and %s is %s: narrow --variants to lang=go", v.Key(), v.Lang)
		}
	}
	return nil
}

// yardstickTrials per reading: about half a second of fixed CPU work (yardstick.Work).
const yardstickTrials = 8

// yardstick times the fixed work while no load runs (the targets idle or stopped), so
// that the run records how fast its machine was (runners/measure/yardstick).
func (r *runner) yardstick(phase string) error {
	if r.res.Yardstick == nil {
		r.res.Yardstick = yardstick.New()
	}
	r.progress.note("yardstick: " + phase)
	r.res.Yardstick.Readings = append(r.res.Yardstick.Readings, yardstick.Take(phase, yardstickTrials))
	return r.writer.flush()
}

func (r *runner) run(ctx context.Context) error {
	if err := r.writer.flush(); err != nil {
		return err
	}
	// Teardown first: a provision that fails half way (proxy, TargetDBAddr) must still
	// stop the database it started, and remove the topology.
	defer r.teardown()
	if err := r.place(ctx); err != nil {
		return err
	}
	if err := r.provision(ctx); err != nil {
		return err
	}
	for i, v := range r.vs {
		r.progress.phase(i, v, "verify + round trips")
		if err := r.check(ctx, v); err != nil {
			return err
		}
		if err := r.writer.flush(); err != nil {
			return err
		}
	}
	budgets := r.budgets()
	if err := r.yardstick("start"); err != nil {
		return err
	}
	langs := measureOrder(r.langs(), budgets)
	for i, lang := range langs {
		took, err := r.measureLang(ctx, lang, budgets[lang])
		if err != nil {
			return err
		}
		carry(budgets, budgets[lang]-took, langs[i+1:])
		if err := r.yardstick("after " + lang); err != nil {
			return err
		}
	}
	r.progress.done()
	return nil
}

// place builds the topology the roles run in and records it.
func (r *runner) place(ctx context.Context) (err error) {
	if r.o.Topology != "" && r.o.Topology != results.Loopback && r.o.DB.KindName() != "embedded" {
		return fmt.Errorf("topology %s places the database itself: it needs the embedded provider, not %s", r.o.Topology, r.o.DB.KindName())
	}
	if r.o.AppHost != "" {
		so := r.o.SSH
		so.Log = cmp.Or(so.Log, r.o.Log) // the host's line: what it is, its scratch directory
		h, err := remote.Connect(ctx, r.o.AppHost, so)
		if err != nil {
			return err
		}
		r.topo = topology.OverSSH(h)
	} else if r.topo, err = topology.Start(ctx, r.o.Topology); err != nil {
		return err
	}
	topo := r.topo
	r.res.Topology = &results.Topology{Kind: topo.Kind}
	here, _ := os.Hostname()
	for _, role := range topo.Roles() {
		p := &results.Place{Role: role.Name, Host: cmp.Or(role.Host, here), Addr: role.Addr, Netns: role.Netns, Link: role.Link}
		if role.Host != "" {
			p.Environment = topo.Remote.Env
		}
		r.res.Topology.Roles = append(r.res.Topology.Roles, p)
	}
	if topo.Kind != results.Loopback {
		fmt.Fprintf(r.o.Log, "topology %s: load %s, app %s (%s), db %s (%s)\n", topo.Kind,
			topo.Load.Addr, topo.App.Addr, cmp.Or(topo.App.Netns, topo.App.Host), topo.DB.Addr, cmp.Or(topo.DB.Netns, "here"))
	}
	return r.writer.flush()
}

func (r *runner) teardown() {
	if r.secrets != "" {
		os.RemoveAll(r.secrets)
	}
	for _, name := range r.dbOrder {
		r.dbs[name].close(func(format string, args ...any) { fmt.Fprintf(r.o.Log, format, args...) })
	}
	if r.topo != nil {
		r.recordBytes()
		if err := r.topo.Close(); err != nil {
			fmt.Fprintf(r.o.Log, "removing the topology: %v\n", err)
		}
	}
}

// recordBytes records what each role's link carried over the run.
func (r *runner) recordBytes() {
	for i, role := range r.topo.Roles() {
		if in, out, ok := role.Bytes(); ok {
			r.res.Topology.Roles[i].BytesIn, r.res.Topology.Roles[i].BytesOut = in, out
		}
	}
}

// startTarget starts v's target on dsnFile, a DSN file of v's server.
func (r *runner) startTarget(ctx context.Context, v matrix.Variant, dsnFile string) (*target.Target, error) {
	return target.Start(ctx, r.specs[v.Key()], r.targetOptions(v.Rev, dsnFile))
}

// targetOptions are Options.targetOptions on the run's app role.
func (r *runner) targetOptions(rev, dsnFile string) target.Options {
	o := r.o.targetOptions(rev, dsnFile)
	o.Host, o.From, o.Remote = r.topo.App, r.topo.Load.Addr, r.topo.Remote
	return o
}

// turnSetting is the turn recorded with the run: only the interleave design has turns.
func (o *Options) turnSetting() string {
	if o.Design != Interleave {
		return ""
	}
	return o.Turn.String()
}

// check verifies a variant and counts its round trips through the proxy. A failure of
// the variant marks it invalid; only a failure of the run itself is returned.
func (r *runner) check(ctx context.Context, v matrix.Variant) error {
	rv := r.byKey[v.Key()]
	d := r.on(rv)
	t, err := r.startTarget(ctx, v, d.viaProxy)
	if err != nil {
		return r.failVariant(ctx, rv, "target did not start: "+err.Error())
	}
	defer t.Stop()
	spec := r.specs[v.Key()]
	db := spec.Layer.DB
	rv.Verification = verify(ctx, t.URL, spec, d.db.Rows, r.o.DB.OrdersPerUser, r.o.Seed, d.admin, d.db.Rebind)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if rv.Verification.Error != "" {
		r.invalidate(rv, "verification failed: "+rv.Verification.Error+targetSaid(t))
		return nil
	}
	if !db {
		return nil // no database, nothing to count
	}
	via := counted{admin: d.admin, proxy: d.proxy, holds: t.Holds, server: servers.For(d.db.Protocol())}
	if d.db.Pooler != nil {
		via.pooler = d.db.Pooler.Stats
	}
	rt, err := countRoundtrips(ctx, via, t.URL, spec.Op, v.Pool, d.db.Rows, r.o.RoundtripRequests, r.o.Seed, r.expectation(v))
	if err != nil {
		return r.failVariant(ctx, rv, "round-trip capture failed: "+err.Error()+targetSaid(t))
	}
	rv.Roundtrips = rt
	if z := rt.ZeroLoad; t.AdminURL != "" && z != nil && z.Held == 0 {
		fmt.Fprintf(r.o.Log, "note: %s: the target's connection holds could not be timed (GET /debug/dbstats); its pool is sized on the commands' wait at the counting proxy\n", v.Key())
	}
	for _, why := range rt.Why {
		if !r.explained[why] {
			r.explained[why] = true
			fmt.Fprintf(r.o.Log, "note: %s's general log counts %s per request beyond the wire's: %s (matrix.yaml; said once)\n", v.Key(), countsText(rt.LogOnly), why)
		}
	}
	if !rt.Match {
		fmt.Fprintf(r.o.Log, "note: %s round trips differ from the matrix: %s\n", v.Key(), rt.Mismatch)
	}
	return nil
}

// databaseAlive returns an error when a database, or the app's host, is gone: then
// no later variant can be measured, and the run must end rather than mark every
// variant invalid.
func (r *runner) databaseAlive(ctx context.Context) error {
	if h := r.topo.Remote; h != nil {
		if err := h.Check(ctx); err != nil {
			return fmt.Errorf("the app host dropped: %w", err)
		}
	}
	if r.dead != nil {
		return r.dead
	}
	for _, name := range r.dbOrder {
		if err := r.alive(ctx, r.dbs[name]); err != nil {
			return err
		}
	}
	return nil
}

// alive is databaseAlive for one server.
func (r *runner) alive(ctx context.Context, d *database) error {
	if d.db.PID != 0 && syscall.Kill(d.db.PID, 0) == syscall.ESRCH {
		return r.died(ctx, d, fmt.Errorf("%s pid %d is gone", d.db.Daemon, d.db.PID))
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := d.admin.PingContext(pctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return r.died(ctx, d, fmt.Errorf("it stopped answering: %v", err))
	}
	return nil
}

// targetSaid is "; the target's last database error: …" where t printed one: a 503
// stands for a database error, which the target logs and does not answer with.
func targetSaid(t *target.Target) string {
	if t == nil || t.Said == nil {
		return ""
	}
	for range 20 { // its line comes through a pipe, a moment after the answer
		if s := t.Said(); s != "" {
			return "; the target's last database error: " + s
		}
		time.Sleep(50 * time.Millisecond)
	}
	return ""
}

func (r *runner) invalidate(rv *results.Variant, reason string) {
	rv.Valid = false
	rv.InvalidReason = reason
	fmt.Fprintf(r.o.Log, "invalid: %s: %s\n", rv.Key, reason)
}

// tunedOf is what v is compared with if it is its layer as shipped (matrix.yaml's
// shipped and its language's tuned), else nil.
func tunedOf(l *matrix.Lang, layer *matrix.Layer, v matrix.Variant, protocol string) *results.Tuned {
	if !layer.DB || layer.Shipped == nil || l.Tuned == nil {
		return nil
	}
	if stmt, conn := layer.Shipped.On(protocol); v.Stmt != stmt || v.Conn != conn {
		return nil
	}
	stmt, conn := l.Tuned.On(protocol)
	return &results.Tuned{Stmt: stmt, Conn: conn}
}
