// Package results is the schema of results.json, written while a run goes on so that an
// interrupted run keeps everything it measured. Every write replaces the file atomically:
// a reader never sees half a file.
package results

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"dbbench/dsn/protocol"
	"dbbench/runners/define/matrix"
	"dbbench/runners/histogram"
	"dbbench/runners/saturation"
	"dbbench/runners/units"
)

// Schema names this layout; change it when a field changes meaning, or when readers
// come to rely on a field the runs before it lack. Read also accepts the schemas
// before it, and upgrade.go lists what older runs lack.
const Schema = "dbbench/results/v5"

// Run is the whole of results.json.
type Run struct {
	Schema   string    `json:"schema"`
	Started  time.Time `json:"started"`
	Finished time.Time `json:"finished,omitzero"`
	Status   Status    `json:"status"`
	Error    string    `json:"error,omitempty"`
	// Command is the command line that made the run, its DSN's password masked.
	Command     string            `json:"command,omitempty"`
	Environment map[string]string `json:"environment"`
	Settings    Settings          `json:"settings"`
	// Langs holds the matrix's facts about each language the run measured, so that a
	// report needs nothing but this file.
	Langs    map[string]*Lang `json:"langs"`
	Variants []*Variant       `json:"variants"`
	// Comparisons are the pairs the run measured side by side (package questions), each
	// with the slices its per-pair ratios come from.
	Comparisons []*Comparison `json:"comparisons,omitempty"`
	// Yardstick is fixed work measured at the start, between the languages and at the
	// end: how fast the machine was while the run ran.
	Yardstick *Yardstick `json:"yardstick,omitempty"`
	// Link is the distance between the targets and the database.
	Link *Link `json:"link,omitempty"`
	// Topology is where each role ran and the round trips between them (nil: every
	// role on one host's loopback).
	Topology *Topology `json:"topology,omitempty"`
	// AB is set when the run measured two revisions of the suite side by side (dbbench
	// ab): every variant once per revision, and its comparisons are the revision pairs.
	AB *AB `json:"ab,omitempty"`
	// PoolCheck is the fourth answer checked by measurement after the run: each family
	// at the pool the model predicts for this machine and its neighbours, at the need's
	// rate and distance (runners/sweep/check.go). Nil when it did not run.
	PoolCheck *PoolCheck `json:"pool_check,omitempty"`
	// Connections is what opening a connection cost on each server the run measured on
	// (by server name: mariadb, mysql), one entry per authentication path with and
	// without TLS (runners/measure/connectcost). Nil for a dsn database.
	Connections map[string][]*ConnectCost `json:"connections,omitempty"`
	// Writes is set when the database died while writes were measured: what it had
	// acknowledged against what the table held once it was back (run/writes.go).
	Writes *WritesAfterDeath `json:"writes_after_death,omitempty"`
}

// PoolCheck is a check of the pool answer on this machine: open-loop probes at Rate
// with RTT added between the targets and the database.
type PoolCheck struct {
	Rate float64  `json:"rate"`    // req/s offered to each point
	SLO  float64  `json:"slo_p99"` // seconds
	RTT  Duration `json:"rtt"`     // added, as asked
	// Path is the round trip the targets measured to the database, RTT included.
	Path   float64 `json:"path_rtt_s"`
	Probes int     `json:"probes"` // per point
	Dir    string  `json:"dir"`    // the check's own run, relative to this run's directory
	// Skipped says why the check did not measure (a database the run may not load, a
	// remote app host): the answer is modelled, not checked.
	Skipped  string           `json:"skipped,omitempty"`
	Error    string           `json:"error,omitempty"`
	Families []*CheckedFamily `json:"families,omitempty"`
}

// CheckedFamily is one family's check: Model is the pool the model predicted for this
// machine (every role sharing its cores), Points the pools probed.
type CheckedFamily struct {
	Family string          `json:"family"` // the key without its pool
	Model  int             `json:"model"`
	Points []*CheckedPoint `json:"points"`
}

// CheckedPoint is one pool probed: Held when every probe that decided held (and at
// least one did); the p99 of each probe, in the order measured.
type CheckedPoint struct {
	Pool   int       `json:"pool"`
	Held   bool      `json:"held"`
	P99s   []float64 `json:"p99s"`
	Rates  []float64 `json:"achieved"`      // req/s each probe completed
	Why    string    `json:"why,omitempty"` // the first failure
	Probes []Probe   `json:"probes"`
}

// AB is a run of two revisions: every variant served by A's build and by B's, at once,
// against the same database, each variant at B compared with itself at A.
type AB struct {
	A *Rev `json:"a"`
	B *Rev `json:"b"`
	// Margin is the smallest change that matters, a fraction (0.03 is ±3%): the
	// report's verdicts and the gate of dbbench ab --fail-on regression use it.
	Margin float64 `json:"threshold"`
}

// Rev is one revision of an A/B run.
type Rev struct {
	// ID is the variants' rev= value: the commit's short hash, with "-dirty" for a
	// working tree with uncommitted changes, and "-b" on B's side when both sides
	// are the same (an A/A).
	ID      string `json:"id"`
	Name    string `json:"name"`   // as given: HEAD, origin/main, v1.2, WORKTREE
	Commit  string `json:"commit"` // the full hash (HEAD's for a working tree)
	Subject string `json:"subject"`
	Dirty   bool   `json:"dirty,omitempty"` // a working tree with uncommitted changes
	// Environment is what the launchers record of this revision's build: the Go
	// target's toolchain and each layer's library version (the run's Environment has
	// the machine's).
	Environment map[string]string `json:"environment,omitempty"`
}

// Link is the distance between the targets and the database: the round-trip time added
// on purpose (--rtt), and a ping's round trip (Topology.DBProbe) on an idle connection as measured
// from the targets' side (their namespace, on netns), direct and on the targets' path
// (through the counting proxy, and the delay proxy when there is one). Seconds;
// medians of the pings.
type Link struct {
	Added  float64 `json:"added_rtt_s"`
	Direct float64 `json:"direct_rtt_s"`
	Path   float64 `json:"path_rtt_s"`
	Pings  int     `json:"pings"`
}

// Topology is where the roles ran: all on one host's loopback, each in a network
// namespace of its own behind a bridge, or the app on another machine over SSH
// (runners/measure/topology), and the round trips measured between them.
type Topology struct {
	Kind  TopologyKind `json:"kind"`
	Roles []*Place     `json:"roles"`
	Links []*RoleLink  `json:"links,omitempty"`
}

// Place is where one role ran: load (the runner, its load generator and its proxies),
// app (the targets) or db.
type Place struct {
	Role string `json:"role"`
	// Host is the machine: this one's name, or ssh://user@host:port for an app host.
	Host  string `json:"host"`
	Addr  string `json:"addr"`
	Netns string `json:"netns,omitempty"`
	// Environment is what another machine is (arch, kernel, cpu, cpu-count); the run's
	// own Environment is this one's.
	Environment map[string]string `json:"environment,omitempty"`
	// Link is the interface that carried the role's traffic (the root end of its
	// veth, the bridge for load), and Bytes what it carried to and from the role over
	// the whole run; none on loopback, which the whole machine shares.
	Link     string `json:"link,omitempty"`
	BytesIn  int64  `json:"bytes_in,omitempty"`
	BytesOut int64  `json:"bytes_out,omitempty"`
}

// RoleLink is a round trip measured between two roles: the median of Pings on one
// idle connection, by Probe (the server's ping, COM_PING or an empty query, to the
// database; a one-byte TCP echo to the app's host), Via a proxy of the runner's or direct.
type RoleLink struct {
	From  string  `json:"from"`
	To    string  `json:"to"`
	Via   string  `json:"via"`
	Probe string  `json:"probe"`
	RTT   float64 `json:"rtt_s"`
	Pings int     `json:"pings"`
}

// The roles a RoleLink joins (runners/measure/topology places them).
const (
	RoleLoad = "load"
	RoleApp  = "app"
	RoleDB   = "db"
)

// DBProbe names the ping that timed the app's direct link to the database (per server:
// "COM_PING", "empty query"); "ping" for a run that recorded no such link.
func (t *Topology) DBProbe() string {
	if t != nil {
		for _, l := range t.Links {
			if l.From == RoleApp && l.To == RoleDB && l.Via == "direct" && l.Probe != "" {
				return l.Probe
			}
		}
	}
	return "ping"
}

// TopologyKind is where a run placed its roles (runners/measure/topology).
type TopologyKind string

// Topology kinds, in the order the CLI shows them.
const (
	Loopback TopologyKind = "loopback" // every role on this host's loopback
	Netns    TopologyKind = "netns"    // each role in a network namespace behind a bridge
	// SSH is the app on another machine, reached over SSH: not a --topology value,
	// --app-host's.
	SSH TopologyKind = "ssh"
)

// TopologyKind is the run's topology, Loopback for runs that did not record one.
func (r *Run) TopologyKind() TopologyKind {
	if r.Topology == nil || r.Topology.Kind == "" {
		return Loopback
	}
	return r.Topology.Kind
}

// DatabaseTitle is database server db (a variant's Database) as its users name it,
// from the run's variants on it; db itself when none ran there.
func (r *Run) DatabaseTitle(db string) string {
	for _, v := range r.Variants {
		if v.Database == db && v.DatabaseTitle != "" {
			return v.DatabaseTitle
		}
	}
	return db
}

// FirstDatabase is the run's first database server, the one its first screen answers
// and its pool check measures: the matrix's first ("", MariaDB) when the run measured
// it, else the server of its first variant.
func (r *Run) FirstDatabase() string {
	for _, v := range r.Variants {
		if v.Database == "" {
			return ""
		}
	}
	if len(r.Variants) == 0 {
		return ""
	}
	return r.Variants[0].Database
}

// EnvKey is the Environment's key of a fact about database db (a variant's Database):
// the fact's own name for the run's default server (""), "fact-db" for another.
func EnvKey(fact, db string) string {
	if db == "" {
		return fact
	}
	return fact + "-" + db
}

// BaselineOf is the layer v is compared with in question 1: its LayerRef, else its
// language's baseline ("raw" for a language the run does not describe).
func (r *Run) BaselineOf(v *Variant) string {
	if v.LayerRef != "" {
		return v.LayerRef
	}
	if l := r.Langs[v.Lang]; l != nil {
		return l.Baseline
	}
	return "raw"
}

// Yardstick is a CPU-bound piece of fixed work that depends on none of the code under
// test, timed several times at each of a few moments of the run.
type Yardstick struct {
	Work string `json:"work"` // what one trial does, in words
	// KernelWork is what one trial of the kernel's part does (a loopback TCP echo):
	// "" in runs that timed user-space work alone.
	KernelWork string     `json:"kernel_work,omitempty"`
	Readings   []*Reading `json:"readings"`
}

// Reading is one moment's trials.
type Reading struct {
	At     time.Time `json:"at"`
	Phase  string    `json:"phase"`            // start, after <lang>, end
	Trials []float64 `json:"trials"`           // seconds of each trial: lower is a faster machine
	Kernel []float64 `json:"kernel,omitempty"` // seconds of each kernel trial, likewise
}

// Comparison is one pair of variants measured in adjacent slices, so that the machine's
// drift hits both sides alike.
type Comparison struct {
	Question string `json:"question"` // the key the two differ in: layer, stmt, conn, server, rev
	Base     string `json:"base"`     // variant key of the reference: the baseline layer, prepare, persistent, the first server
	Other    string `json:"other"`    // variant key of the other
	Pairs    []Pair `json:"pairs"`
	// Reached says whether the interval of the QPS and the app CPU ratio both came
	// within the run's precision target before its budget ended.
	Reached bool `json:"reached"`
	// Finding is the comparison judged from its pairs (runners/judge/findings), when the run
	// that measured it stored one (schema v4 on).
	Finding *Finding `json:"finding,omitempty"`
}

// Pair is one observation of a comparison: the repetitions (Rep numbers) of each side
// that stood next to each other. Its ratio is the geometric mean of Other's values over
// the geometric mean of Base's (one on each side, or a sandwich: two of one side around
// one of the other, which cancels a linear drift).
type Pair struct {
	Base  []int `json:"base"`
	Other []int `json:"other"`
}

// Tuned are a statement mode and a connection mode a variant as shipped is compared
// with (Variant.Tuned).
type Tuned struct {
	Stmt string `json:"stmt"`
	Conn string `json:"conn"`
}

// Lang is what the matrix said of a language when the run was made.
type Lang struct {
	// Baseline is the layer every other database layer is compared with (question 1).
	Baseline string `json:"baseline"`
	// Default is the first server, which a variant name without server= means; the
	// others are compared with it.
	Default string             `json:"default"`
	Servers map[string]*Server `json:"servers"`
	// Modes is how each statement mode besides prepare, and a pooled connection, is
	// set in the language's drivers (matrix.yaml, modes), for the report's answers 2
	// and 3.
	Modes map[string]*ModeSetting `json:"modes,omitempty"`
}

// ModeSetting is what to set for a statement mode, the libraries' default and the
// caveat before switching.
type ModeSetting struct {
	Set     string `json:"set"`
	Default string `json:"default"`
	Caveat  string `json:"caveat,omitempty"`
}

// Server is one server of a language: its launcher and what pool=N means under it.
type Server struct {
	Launcher string `json:"launcher"`
	Pool     string `json:"pool"`
}

// Settings are the run's knobs, as given or taken from the preset.
type Settings struct {
	Preset   string `json:"preset"`
	Provider string `json:"provider"`
	// DBs are the servers measured on (--db), in the order given; empty: the first.
	DBs  []string `json:"dbs,omitempty"`
	Rows int      `json:"rows"`
	// OrdersPerUser is each fixture user's orders, where an op read them (the orders
	// ops); 0: no orders table was loaded.
	OrdersPerUser int `json:"orders_per_user,omitempty"`
	// ServerMaxConnections is the embedded server's max_connections where the run set
	// it (--server-max-connections); 0: sized from the run's pools.
	ServerMaxConnections int     `json:"server_max_connections,omitempty"`
	Connections          int     `json:"connections"`
	Rate                 float64 `json:"rate"` // 0: closed loop
	// Poisson: the open loop's sends were spaced by exponential gaps (loadgen.Config.Poisson).
	Poisson   bool   `json:"poisson,omitempty"`
	KeepAlive bool   `json:"keepalive"`
	Warmup    string `json:"warmup"`
	Duration  string `json:"duration"`
	Reps      int    `json:"reps"`
	Seed      uint64 `json:"seed"`
	// Pairing is how the comparisons were measured.
	Pairing *Pairing `json:"pairing,omitempty"`
	// Round trips: requests per capture, sent one at a time after a warm-up.
	RoundtripRequests int `json:"roundtrip_requests"`
	// A variant is invalid when its error rate exceeds this fraction.
	MaxErrorRate float64 `json:"max_error_rate"`
	// SaturatedP99 is an older run's saturation rule (upgrade.go).
	SaturatedP99 string `json:"saturated_p99,omitempty"`
	// PoolNeed is what the report sizes pools for (run --pool-rate …): the fourth answer.
	PoolNeed *PoolNeed `json:"pool_need,omitempty"`
}

// PoolNeed is a production load to size a pool for: the peak rate per app instance, the
// p99 target, the round trip to the database, the instances and max_connections.
type PoolNeed struct {
	Rate           float64  `json:"rate"`
	P99            Duration `json:"p99"`
	RTT            Duration `json:"rtt"`
	Instances      int      `json:"instances"`
	MaxConnections int      `json:"max_connections"`
	// Production's hosts (cores) and the user's present pool.
	AppCores int `json:"app_cores,omitempty"`
	DBCores  int `json:"db_cores,omitempty"`
	Current  int `json:"current,omitempty"`
	// AppMemory is a production app instance's host's memory, bytes.
	AppMemory int64 `json:"app_memory_bytes,omitempty"`
}

// Pairing is the design of the paired measurement (runners/measure/run/README.md).
type Pairing struct {
	Design    string  `json:"design"`         // interleave: blocks of turns; walk: adjacent slices; alternate: (A B) or (B A) per pair
	Slice     string  `json:"slice"`          // measured time of one slice (interleave: of each variant in a block)
	LeadIn    string  `json:"lead_in"`        // load sent before each slice and not measured (not in blocks)
	Turn      string  `json:"turn,omitempty"` // interleave: the shortest turn (runners/measure/run/turns.go)
	Precision float64 `json:"precision"`      // stop a comparison once both intervals are this narrow (half-width, 0.02 = ±2%)
	MinPairs  int     `json:"min_pairs"`      // pairs measured before any may stop
	MaxPairs  int     `json:"max_pairs"`      // pairs after which a comparison stops whatever its interval
	Budget    string  `json:"budget"`         // time for all the pairs of the run
}

// Variant is one variant's verification, round trips and repetitions.
type Variant struct {
	Name string `json:"name"` // BenchmarkSingleRow/lang=…/pool=N
	Key  string `json:"key"`
	// Variant is the variant's identity, the parts of its key: lang, server, layer,
	// stmt, conn, pool, and op (matrix.yaml's ops, "" for get), database (the key's
	// db=, "" for the first, MariaDB) and rev (in a run of two revisions) where it has
	// them.
	matrix.Variant
	// Rows is a list's limit, the rows each response holds.
	Rows int `json:"rows,omitempty"`
	// Texts is a get's statement working set (matrix.Op's): the distinct statement
	// texts the target read the row through; 0 for get's one.
	Texts int `json:"texts,omitempty"`
	// Orders and Fetch are the orders ops' (matrix.Op's): the orders per user each
	// response holds, and the form the target read them in (join, eager, lazy).
	Orders int    `json:"orders,omitempty"`
	Fetch  string `json:"fetch,omitempty"`
	// FetchAPI is the library call of the form, as a team writes it (matrix.yaml's
	// fetch api): "`with('orders')`"; "" where the matrix names none.
	FetchAPI string `json:"fetch_api,omitempty"`
	// DatabaseTitle is the database server's name as its users say it (matrix.yaml's
	// dbs title): "MariaDB", "PgBouncer 1.18".
	DatabaseTitle string `json:"database_title,omitempty"`
	// The layer's facts from the matrix: whether it uses the database, its kind (raw,
	// builder, orm) and its library as people name it.
	DB      bool   `json:"db"`
	Kind    string `json:"kind,omitempty"`
	Library string `json:"library,omitempty"`
	// StmtRef is the statement mode the layer's others are compared with, where it is
	// not questions.RefStmt (prepare): pgx's default, cache_statement (matrix.yaml).
	StmtRef string `json:"stmt_ref,omitempty"`
	// LayerRef is the layer this one is compared with where it is not its language's
	// Baseline: the baseline on its database's protocol (pgx on PostgreSQL, matrix.yaml).
	LayerRef string `json:"layer_ref,omitempty"`
	// Tuned, on a variant that is its layer as its library ships it (matrix.yaml,
	// shipped), are the modes it is compared with: its language's tuned ones.
	Tuned         *Tuned `json:"tuned,omitempty"`
	Valid         bool   `json:"valid"`
	InvalidReason string `json:"invalid_reason,omitempty"`
	// Flags are warnings about a valid variant's figures, such as saturation: the numbers
	// are real, but they describe a queue more than the layer.
	Flags        []string      `json:"flags,omitempty"`
	Verification *Verification `json:"verification,omitempty"`
	Roundtrips   *Roundtrips   `json:"roundtrips,omitempty"`
	Reps         []*Repetition `json:"reps"`
	Histogram    string        `json:"histogram,omitempty"` // .hgrm file of all reps merged, relative to the run dir
	// Profile is the variant's profiled slice, measured apart from Reps (profiling
	// costs CPU), nil when the run profiled nothing.
	Profile *Profile `json:"profile,omitempty"`
	// Capacity is the pool sweep's capacity search, nil elsewhere.
	Capacity *Capacity `json:"capacity,omitempty"`
	// ServerMemory is what the server's private memory grew by while the variant's
	// target started and warmed up, nothing else using the server (bytes; RssAnon of its
	// processes): its connections' backends and the statements they keep. Read on a
	// server of this host only; it may fall (an allocator returning memory).
	ServerMemory int64 `json:"server_memory_b,omitempty"`
	// WorkerMemory is what each process of a PHP target's pool keeps for itself after
	// the run's slices; nil for Go.
	WorkerMemory *WorkerMemory `json:"worker_memory,omitempty"`
}

// WorkerMemory is the private memory of a PHP target's php-fpm children or resident
// workers (procstat.PrivateBytes): the median over them, and how many there were.
type WorkerMemory struct {
	Private   int64 `json:"private_bytes"`
	Processes int   `json:"processes"`
}

// Capacity is the highest open-loop arrival rate at which a variant kept its p99 within
// a target, its errors under the run's threshold and its throughput at the rate offered
// (not past capacity), found by bisection.
type Capacity struct {
	SLO    float64 `json:"slo_p99"` // seconds
	Rate   float64 `json:"rate"`    // req/s, the highest rate that passed; 0 when none did
	Probes []Probe `json:"probes"`
	// Searches are the independent bisections' results (the highest rate each passed),
	// when the search was repeated: Rate is then their median, and [Lo, Hi] its 95%
	// interval. Empty in runs of one search.
	Searches []float64 `json:"searches,omitempty"`
	Lo       float64   `json:"lo,omitempty"`
	Hi       float64   `json:"hi,omitempty"`
}

// Probe is one rate tried: the slice (Rep) that measured it, which search it belongs to
// (from 1, 0 in runs of one search) and whether it passed.
type Probe struct {
	Rate   float64 `json:"rate"`
	Rep    int     `json:"rep"`
	Search int     `json:"search,omitempty"`
	Pass   bool    `json:"pass"`
	// Inconclusive: the generator fell behind, so the probe said nothing about the
	// target and was measured again (runners/sweep/capacity.go).
	Inconclusive bool   `json:"inconclusive,omitempty"`
	Why          string `json:"why,omitempty"` // what failed
}

// Profile is where a variant's CPU goes: one profiled slice, its stacks folded into
// components a user recognises (runners/measure/profile).
type Profile struct {
	Seconds  float64 `json:"seconds"`
	Requests int64   `json:"requests"`
	// AppCPU is the app CPU per request measured during the profiled slice (seconds),
	// which the components should add up to.
	AppCPU float64 `json:"app_cpu_per_op"`
	// Clock is what the stacks sampled: "cpu" (CPU time; "" in older files) or "real"
	// (wall time of requests in progress, as php-fpm's Excimer samples it: waits for
	// the database and for a core included, so the components add up to more than
	// AppCPU).
	Clock string `json:"clock,omitempty"`
	// Source is the profiler whose samples the components come from: "perf" (Linux
	// perf's cpu-clock, kernel frames included: Go), "pprof" (Go's own profiler, which
	// misses part of the CPU, runners/measure/profile/README.md, "Which profiler": Go without
	// perf, and files before perf was used), "perf+excimer" (php-fpm: perf's CPU
	// samples given the stacks of Excimer's wall-clock samples nearest in time,
	// profile.JoinCPU) or "excimer" (PHP workers, and php-fpm without perf).
	Source string `json:"source,omitempty"`
	// Matched is, for "perf+excimer" (php-fpm), the share of the PHP processes' CPU
	// whose sample found a wall-clock stack of the same process within 2 ms; the rest
	// is php-fpm's own work outside a request ("[php-fpm]").
	Matched float64 `json:"matched,omitempty"`
	// Time per request by component (seconds, of Clock), by the component's label.
	Components map[string]float64 `json:"components"`
	// Bytes allocated per request by component (Go), by label.
	Allocs map[string]float64 `json:"allocs,omitempty"`
	// Files relative to the run directory, by kind: cpu and alloc (pprof protobuf; Go's
	// own), perf (perf's samples as pprof protobuf, when Source is "perf"),
	// collapsed (folded stacks: speedscope, flamegraph.pl), flame (self-contained SVG).
	Files map[string]string `json:"files"`
}

// Verification is what the runner checked before measuring.
type Verification struct {
	Bodies    int `json:"bodies"`     // responses compared with name(id), a list's rows each
	BadID     int `json:"bad_id"`     // status for a malformed id, list query or insert body (want 400)
	UnknownID int `json:"unknown_id"` // get and update: status for id 4294967295, never a row (want 404)
	// ReadBack counts the rows read back from the database after an insert or an
	// update: the row as sent, the counter one higher.
	ReadBack int    `json:"read_back,omitempty"`
	Error    string `json:"error,omitempty"`
}

// Roundtrips is one capture: counts are per request.
type Roundtrips struct {
	Requests int                `json:"requests"`
	Log      map[string]float64 `json:"log"`            // general log, per request
	Wire     map[string]float64 `json:"wire,omitempty"` // counting proxy, per request
	Status   map[string]float64 `json:"status"`         // SHOW GLOBAL STATUS deltas, per request
	Expected map[string]int     `json:"expected"`       // from the matrix
	// LogOnly are the commands the general log shows beyond Expected and the wire does
	// not: work the server does on its own, explained in Why (matrix.yaml's rules).
	LogOnly  map[string]int `json:"log_only,omitempty"`
	Why      []string       `json:"why,omitempty"`
	Match    bool           `json:"match"` // wire (or log, for log-visible commands) equals expected
	Mismatch string         `json:"mismatch,omitempty"`
	Queries  []string       `json:"queries,omitempty"`
	// Bytes per request each way between target and database, counted on the wire by
	// the proxy (0: not counted).
	BytesToDB   float64 `json:"bytes_to_db,omitempty"`
	BytesFromDB float64 `json:"bytes_from_db,omitempty"`
	// WireFrom is the addresses the counted commands came from, as the counting proxy
	// saw them: the app's (127.0.0.1 on loopback, its namespace's on netns).
	WireFrom []string `json:"wire_from,omitempty"`
	// NotQuiet: the server's counters kept moving after the last response (another
	// client used it), so Status may count more than this variant's commands.
	NotQuiet bool `json:"not_quiet,omitempty"`
	// PerfSchema is performance_schema's count of the statements per request, by the
	// command the general log names (runners/measure/roundtrip/perfschema.go), with the rows they
	// examined and the server's time in them per request; nil, with PerfSchemaOff saying
	// why, where the server did not count (performance_schema off).
	PerfSchema    map[string]float64 `json:"perf_schema,omitempty"`
	RowsExamined  float64            `json:"rows_examined,omitempty"`
	ServerTime    float64            `json:"server_time_s,omitempty"`
	PerfSchemaOff string             `json:"perf_schema_off,omitempty"`
	// Auth is the new connections per request by the authentication path they took
	// (runners/measure/roundtrip/handshake.go: mysql_native_password, caching_sha2_password's
	// cached or full path), and HandshakeTrips their handshakes' round trips after TCP's
	// per request, counted by the proxy.
	Auth           map[string]float64 `json:"auth,omitempty"`
	HandshakeTrips float64            `json:"handshake_round_trips,omitempty"`
	// ZeroLoad is what a request cost when it was the only one (the count sends them one
	// at a time): where a pool sizing model starts (runners/judge/poolsize).
	ZeroLoad *ZeroLoad `json:"zero_load,omitempty"`
	// Protocol is "postgres" for a count on PostgreSQL: Wire then counts its frontend
	// messages, Trips the round trips the proxy saw (messages are no round trips there:
	// a Sync answers a batch), and Statements pg_stat_statements' statements per request
	// by their first word; Log and Status are empty. "" on MySQL's protocol.
	Protocol   protocol.Protocol  `json:"protocol,omitempty"`
	Trips      float64            `json:"round_trips,omitempty"`
	Statements map[string]float64 `json:"statements,omitempty"`
	// Pooler is a transaction pooler's own count per request (PgBouncer's SHOW STATS
	// total_…_count, named without prefix and suffix: client_parse, server_parse, bind,
	// xact, query), where the targets reached the server through one the run started.
	Pooler map[string]float64 `json:"pooler,omitempty"`
}

// ConnectCost is what opening one connection cost on one authentication path (as
// runners/measure/roundtrip/handshake.go names it), with or without TLS: the round trips of
// its handshake after TCP's (the median connection's), the client's wait for an authenticated connection, and
// the server's CPU to accept, authenticate and close it, in seconds: medians (of the
// connections' waits, and of the rounds' CPU per connection) with their 95% interval,
// benchstat's (infinite below 6 values).
type ConnectCost struct {
	Path         string  `json:"path"`
	TLS          bool    `json:"tls"`
	Connections  int     `json:"connections"`
	RoundTrips   float64 `json:"round_trips"`
	Latency      float64 `json:"latency_s"`
	LatencyLo    float64 `json:"latency_lo_s"`
	LatencyHi    float64 `json:"latency_hi_s"`
	ServerCPU    float64 `json:"server_cpu_s"`
	ServerCPULo  float64 `json:"server_cpu_lo_s"`
	ServerCPUHi  float64 `json:"server_cpu_hi_s"`
	RoundsOfEach int     `json:"rounds"`
}

// ZeroLoad is the cost of one request alone, in seconds: its latency, and the time its
// commands waited for the database's answers, timed at the counting proxy (so it holds
// the database's work and every round trip to it, and none of the app's own work).
// Held is how long a Go request kept its connection checked out (go/held: from the
// pool's handing it over to its return), which adds the app's work in between; 0 for
// PHP. Means with their 95% interval; the
// latency's p99 too.
type ZeroLoad struct {
	Requests   int     `json:"requests"`
	Latency    float64 `json:"latency_s"`
	LatencyLo  float64 `json:"latency_lo_s"`
	LatencyHi  float64 `json:"latency_hi_s"`
	LatencyP99 float64 `json:"latency_p99_s"`
	DBWait     float64 `json:"db_wait_s"`
	DBWaitLo   float64 `json:"db_wait_lo_s"`
	DBWaitHi   float64 `json:"db_wait_hi_s"`
	Held       float64 `json:"held_s,omitempty"`
	HeldLo     float64 `json:"held_lo_s,omitempty"`
	HeldHi     float64 `json:"held_hi_s,omitempty"`
}

// byteUnits are the capture's bytes per request, when counted.
func (rt *Roundtrips) byteUnits() []UnitValue {
	if rt.BytesToDB == 0 && rt.BytesFromDB == 0 {
		return nil
	}
	return []UnitValue{{units.ToDB, rt.BytesToDB}, {units.FromDB, rt.BytesFromDB}}
}

// poolerUnits are the pooler's counts in bench.txt's units, where it counted them
// (PgBouncer 1.21 and later count Parse and Bind).
func (rt *Roundtrips) poolerUnits() []UnitValue {
	var out []UnitValue
	for _, c := range []struct{ unit, key string }{{units.PoolerParses, "server_parse"}, {units.PoolerBinds, "bind"}} {
		if n, ok := rt.Pooler[c.key]; ok {
			out = append(out, UnitValue{c.unit, n})
		}
	}
	return out
}

// PerCommand is the capture's commands per request by name: the wire's counts when
// there are any, since the general log misses COM_PING.
func (rt *Roundtrips) PerCommand() map[string]float64 {
	if rt.Wire != nil {
		return rt.Wire
	}
	return rt.Log
}

// Speaks is the protocol the capture counted: MySQL's when it names none.
func (rt *Roundtrips) Speaks() protocol.Protocol {
	if rt.Protocol == "" {
		return protocol.MySQL
	}
	return rt.Protocol
}

// CountedProtocols says whose counts the variants hold: MySQL's commands, PostgreSQL's
// frontend messages (Roundtrips.Protocol), or both.
func CountedProtocols(vs []*Variant) (mysql, postgres bool) {
	for _, v := range vs {
		if v.Roundtrips != nil {
			postgres = postgres || v.Roundtrips.Protocol == protocol.Postgres
			mysql = mysql || v.Roundtrips.Protocol != protocol.Postgres
		}
	}
	return mysql, postgres
}

// Commands sums a capture per request: every client command plus each new connection,
// and of those the round trips, the ones the client waits for (a new connection counts
// as one, though its handshake takes more). Wire counts are used when present, since
// the general log misses COM_PING.
func (rt *Roundtrips) Commands() (commands, roundtrips float64) {
	// Summed in the names' order: a map's order would move the last bits of a sum of
	// fractions from one reading to the next.
	if rt.Speaks().Batched() { // its round trips are counted apart (Trips)
		for _, k := range slices.Sorted(maps.Keys(rt.Wire)) {
			commands += rt.Wire[k]
		}
		return commands, rt.Trips
	}
	per := rt.PerCommand()
	for _, k := range slices.Sorted(maps.Keys(per)) {
		commands += per[k]
		if protocol.Waits(k) {
			roundtrips += per[k]
		}
	}
	return commands, roundtrips
}

// Repetition is one measured interval of one variant.
type Repetition struct {
	Rep      int              `json:"rep"` // 1-based
	Started  time.Time        `json:"started"`
	Seconds  float64          `json:"seconds"`
	Requests int64            `json:"requests"`
	OK       int64            `json:"ok"`
	Errors   map[string]int64 `json:"errors,omitempty"` // by class
	QPS      float64          `json:"qps"`
	// Latency in seconds; for open loop, from the intended send time.
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	// CPU seconds per request by role; -1 when not measurable (a server not on this host).
	AppCPU float64 `json:"app_cpu_per_op"`
	DBCPU  float64 `json:"db_cpu_per_op"`
	GenCPU float64 `json:"gen_cpu_per_op"`
	AppRSS int64   `json:"app_peak_rss_bytes"`
	// OutsideCPU is how many cores other processes than the target, the database and
	// dbbench kept busy during the slice (run/measure.go, outside): a neighbour. Nil
	// where a role's CPU was not read.
	OutsideCPU *float64 `json:"outside_cpu_cores,omitempty"`
	// The database's Threads_running, sampled every 100 ms during the repetition.
	ThreadsRunningMean float64 `json:"threads_running_mean"`
	ThreadsRunningMax  int64   `json:"threads_running_max"`
	// Pool counters over the repetition, where the target has them (database/sql's):
	// PoolCounted says they were read, so a 0 is a count and not a gap.
	PoolCounted     bool    `json:"pool_counted,omitempty"`
	PoolWaits       int64   `json:"pool_waits,omitempty"`
	PoolWaitSeconds float64 `json:"pool_wait_seconds,omitempty"`
	// The pool's connections in use, sampled every 100 ms (database/sql's InUse).
	PoolInUseMean float64 `json:"pool_in_use_mean,omitempty"`
	PoolInUseMax  int64   `json:"pool_in_use_max,omitempty"`
	// PoolHeld is a checkout's mean hold of its connection over the repetition, seconds
	// (go/held, timed in the target); 0 where not timed.
	PoolHeld float64 `json:"pool_held_s,omitempty"`
	// Saturation is what saturation.Judge reads of the slice's load (the schedule, the
	// timeline, the queues), stored so that a report judges it again.
	Saturation *saturation.Summary `json:"saturation,omitempty"`
	// Turns says the repetition was measured in turns with other variants (a block of
	// the interleave design, runners/measure/run/README.md); nil for a slice of its own.
	Turns *Turns `json:"turns,omitempty"`
	// Visits is the update op's count of its own increments (nil for other ops).
	Visits *Visits `json:"visits,omitempty"`
	// Counts are figures per request that do not depend on the machine's speed, by
	// their bench.txt unit (units package): allocations, bytes, system calls, context
	// switches, a request's peak memory.
	Counts map[string]float64 `json:"counts,omitempty"`
	// HdrHistograms of the repetition in nanoseconds, V2-compressed and base64 encoded
	// (histogram.Decode), so they merge across repetitions, runs and hosts.
	// Latency is from the intended send time, Service from the actual send.
	Latency string `json:"latency_hdr"`
	Service string `json:"service_hdr"`
}

// Turns describes a repetition measured in a block: Seconds is then the time of its
// turns (open, and draining its last answers), QPS its requests over that time.
type Turns struct {
	Block  int     `json:"block"`  // the block's number in its language's phase, from 1
	Length float64 `json:"length"` // seconds each turn was open
	Count  int     `json:"count"`  // how many turns the variant had
}

// Visits compares an update repetition's successful requests with the visits the
// table gained meanwhile: every one of them is one increment, so Lost must be 0.
type Visits struct {
	Successful int64 `json:"successful"` // 2xx answers
	Gained     int64 `json:"gained"`     // SUM(visits) of the fixture rows, after less before
}

// Lost is how many successful updates the table does not show (negative: it gained
// more than was answered, as a timed-out request that committed later would).
func (v *Visits) Lost() int64 { return v.Successful - v.Gained }

// LostUpdates sums the lost updates of v's repetitions; checked is false when none of
// them counted visits (an op other than update).
func (v *Variant) LostUpdates() (lost, successful int64, checked bool) {
	for _, r := range v.Reps {
		if r.Visits != nil {
			lost, successful, checked = lost+r.Visits.Lost(), successful+r.Visits.Successful, true
		}
	}
	return lost, successful, checked
}

// Latency merges the latency histograms of v's repetitions.
func (v *Variant) Latency() (*histogram.Histogram, error) {
	enc := make([]string, len(v.Reps))
	for i, r := range v.Reps {
		enc[i] = r.Latency
	}
	return histogram.Merge(enc...)
}

// Keys are the variants' keys, in their order.
func Keys(vs []*Variant) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Key
	}
	return out
}

// JudgementFile is the file beside results.json that keeps what a run's or a sweep's
// page shows, judged from it once (runners/judge, runners/sweep).
const JudgementFile = "judgement.json"

// WriteJSON writes v as indented JSON to path atomically: a temporary file in the same
// directory, synced, then renamed over path.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("results: encode %s: %w", filepath.Base(path), err)
	}
	return WriteFile(path, append(b, '\n'))
}

// WriteFile replaces path with b atomically.
func WriteFile(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("results: sync %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("results: close %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

// Read loads a results.json.
func Read(path string) (*Run, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	var r Run
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	if err := upgrade(&r); err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	return &r, nil
}

// WritesAfterDeath counts, once a database that died under writes is back, the writes
// it acknowledged (answered 2xx) in the slice or block under way, against those found.
type WritesAfterDeath struct {
	// Back says how the server came back: restarted on the same datadir (embedded), or
	// answering again (dsn); Error, why nothing could be counted.
	Back  string `json:"back"`
	Error string `json:"error,omitempty"`
	// Durability is the server's settings that decide whether a commit survives a
	// killed server ("innodb_flush_log_at_trx_commit=1"), and Safe whether they do.
	Durability string         `json:"durability"`
	Safe       bool           `json:"safe"`
	Counts     []WrittenCount `json:"counts"`
}

// WrittenCount is one op's writes: inserts per variant, found by name; visits (update)
// summed over the update variants of the slice or block, each one's visit a +1.
type WrittenCount struct {
	Variants []string `json:"variants"`
	Op       string   `json:"op"`
	// Acknowledged were answered 2xx; Missing of those are not in the table; Extra are
	// in the table beyond them: committed, but the kill cut off the answer.
	Acknowledged int64 `json:"acknowledged"`
	Missing      int64 `json:"missing"`
	Extra        int64 `json:"extra"`
}

// Status is how a run, sweep or soak stands: Running until it ends, then how it ended.
type Status string

const (
	Running     Status = "running"
	Complete    Status = "complete"
	Interrupted Status = "interrupted" // SIGINT or SIGTERM: what was measured is kept
	Failed      Status = "failed"
)
