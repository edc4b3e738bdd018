package soak

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// Schema names the format of soak.json.
const Schema = "dbbench/soak/v1"

// FileName is the soak's results file in its directory.
const FileName = "soak.json"

// File is soak.json: everything a soak measured, rewritten after every sample so an
// interrupted soak keeps its series.
type File struct {
	Schema      string            `json:"schema"`
	Status      results.Status    `json:"status"`
	Error       string            `json:"error,omitempty"`
	Started     time.Time         `json:"started"`
	Finished    time.Time         `json:"finished,omitzero"`
	Settings    Settings          `json:"settings"`
	Environment map[string]string `json:"environment"`
	// Samples counts the sampling rounds taken (each samples every role once).
	Samples  int        `json:"samples"`
	Database *Role      `json:"database"`
	Variants []*Variant `json:"variants"`
	// waits is each Go target's last pool WaitCount, for the next sample's rate.
	waits map[int]Point
}

// Settings are the options a soak ran with.
type Settings struct {
	// Mode says how the variants shared the machine: "concurrent" (all at once, each
	// with its own target and generator, for the whole duration).
	Mode           string         `json:"mode"`
	Duration       string         `json:"duration"`
	Interval       string         `json:"interval"`
	Warmup         string         `json:"warmup"`
	WarmupSeconds  float64        `json:"warmup_s"`
	CapacityWarmup string         `json:"capacity_warmup"`
	CapacityTime   string         `json:"capacity_time"`
	RateFraction   float64        `json:"rate_fraction"`
	Connections    int            `json:"connections"` // 0: 2 × each variant's pool
	Pools          map[string]int `json:"pools"`
	Provider       string         `json:"provider"`
	Rows           int            `json:"rows"`
	Seed           uint64         `json:"seed"`
	// Topology is where the roles ran (runners/measure/topology); "" in soaks before it: loopback.
	Topology results.TopologyKind `json:"topology,omitempty"`
	// The database's limits, read from the server at the start.
	MaxConnections        float64 `json:"max_connections"`
	MaxPreparedStmtCount  float64 `json:"max_prepared_stmt_count"`
	DatabaseProcessSeries bool    `json:"database_process_series"` // false for a server dbbench did not start
	// OutsideStatements: performance_schema was on, so the statements of connections no
	// target holds were counted (outside.go); the outside connections always are.
	OutsideStatements bool `json:"outside_statements,omitempty"`
	// StatementsLimit names the server's limit of prepared statements
	// (max_prepared_stmt_count; "" for PostgreSQL, which has none); OutsideMemory: the
	// private memory of the server's processes for outside connections was read.
	StatementsLimit string `json:"statements_limit,omitempty"`
	OutsideMemory   bool   `json:"outside_memory,omitempty"`
}

// Role is one thing whose series are sampled: a variant's target, or the database.
type Role struct {
	Series []*Series `json:"series"`
}

// Variant is one soaked variant: its target's series and its load. It names the
// variant as results.Variant does, by its key and the identity the key spells
// (matrix.Variant), so that soak.json and results.json write a variant alike.
type Variant struct {
	Key            string    `json:"key"`
	matrix.Variant           // its identity: the parts of Key
	Connections    int       `json:"connections"`
	Capacity       *Capacity `json:"capacity,omitempty"`
	Rate           float64   `json:"rate"` // open loop, requests per second
	Windows        []Window  `json:"windows"`
	// Died says when the target's processes were found gone, if they were.
	Died string `json:"died,omitempty"`
	// Load is how the open loop went after the warm-up (set by Judge).
	Load *Load `json:"load,omitempty"`
	Role
}

// Load sums a variant's windows after the warm-up: requests offered and answered,
// errors, and the median of the windows' p99.
type Load struct {
	OK       float64 `json:"ok"`
	Offered  float64 `json:"offered"` // requests asked for: rate × seconds
	Requests float64 `json:"requests"`
	Errors   float64 `json:"errors"`
	P99      float64 `json:"p99_median_s"` // 0 without a request
}

// loadOf sums v's windows that end after warmup seconds.
func loadOf(v *Variant, warmup float64) *Load {
	l := &Load{}
	var p99s []float64
	for _, w := range v.Windows {
		if w.T < warmup {
			continue
		}
		l.OK, l.Offered = l.OK+float64(w.OK), l.Offered+w.Offered*w.Seconds
		l.Requests += float64(w.Requests)
		for _, n := range w.Errors {
			l.Errors += float64(n)
		}
		p99s = append(p99s, w.P99)
	}
	if l.Requests > 0 {
		l.P99 = stats.Median(p99s)
	}
	return l
}

// Capacity is what a variant achieved in the closed-loop capacity phase, with every
// other variant under the same load at the same time.
type Capacity struct {
	QPS      float64 `json:"qps"`
	Requests int64   `json:"requests"`
	Errors   int64   `json:"errors"`
	P99      float64 `json:"p99_s"`
	Seconds  float64 `json:"seconds"`
}

// Window is one open-loop load window (Interval long).
type Window struct {
	T        float64          `json:"t"` // its end, seconds after the soak started
	Seconds  float64          `json:"seconds"`
	Offered  float64          `json:"offered"`  // requests per second asked for
	Achieved float64          `json:"achieved"` // successful requests per second of the window
	Requests int64            `json:"requests"`
	OK       int64            `json:"ok"`
	Unsent   int64            `json:"unsent"`
	Errors   map[string]int64 `json:"errors,omitempty"`
	P99      float64          `json:"p99_s"`
}

// Roles lists the database first, then the variants, each with a name for people.
func (f *File) Roles() (names []string, roles []*Role) {
	if f.Database != nil {
		names, roles = append(names, "database (all variants together)"), append(roles, f.Database)
	}
	for _, v := range f.Variants {
		names, roles = append(names, v.Key), append(roles, &v.Role)
	}
	return names, roles
}

// Rising lists, as "role: label", the series of what the database holds (connections,
// prepared statements) that rise unresolved (Rising, or Unresolved for too few samples
// in the last half): a leak this soak is too short to tell from settling, which a soak
// in CI must not pass silently.
func (f *File) Rising() []string {
	var out []string
	names, roles := f.Roles()
	for i, r := range roles {
		for _, s := range r.Series {
			// Unresolved: it rose, but its last half had too few samples to judge.
			if (s.Held || heldByDatabase[s.Name]) && s.Verdict != nil && (s.Verdict.Verdict == Rising || s.Verdict.Verdict == Unresolved) {
				out = append(out, names[i]+": "+s.Label)
			}
		}
	}
	return out
}

// Judge sets every series' verdict and every variant's load after the warm-up, then
// judges the loads against each other (judgeLoadsTogether).
func (f *File) Judge() {
	for _, v := range f.Variants {
		v.Load = loadOf(v, f.Settings.WarmupSeconds)
	}
	_, roles := f.Roles()
	for _, r := range roles {
		for _, s := range r.Series {
			v := Judge(s, f.Settings.WarmupSeconds)
			s.Verdict = &v
		}
	}
	f.judgeLoadsTogether()
}

// Write replaces dir/soak.json atomically. Compact: an hour of series is a few MB.
func (f *File) Write(dir string) error {
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("soak: encode %s: %w", FileName, err)
	}
	return results.WriteFile(filepath.Join(dir, FileName), append(b, '\n'))
}

// Read reads dir/soak.json.
func Read(dir string) (*File, error) {
	path := filepath.Join(dir, FileName)
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("%s holds no soak (no %s)", dir, FileName)
	}
	if err != nil {
		return nil, fmt.Errorf("soak: %w", err)
	}
	var f File
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("soak: %s: %w", path, err)
	}
	if f.Schema != Schema {
		return nil, fmt.Errorf("soak: %s has schema %q, want %q", path, f.Schema, Schema)
	}
	return &f, nil
}
