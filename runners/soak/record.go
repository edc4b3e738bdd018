package soak

import "dbbench/runners/measure/servers"

// spec is what a series is, by name: the catalogue every role draws from, so the
// report and soak.json name the same thing the same way.
type spec struct {
	label   string
	unit    string
	kind    Kind
	floor   float64
	counted bool // memory a runtime counts itself (Series.counted)
}

var specs = map[string]spec{
	// Per target, its whole process tree (nginx + php-fpm and their workers for PHP).
	"rss":            {"RSS (all its processes)", "bytes", Memory, 0, false},
	"fds":            {"open descriptors (all its processes)", "count", Count, 0, false},
	"threads":        {"threads (all its processes)", "count", Count, 0, false},
	"processes":      {"processes", "count", Count, 0, false},
	"db_connections": {"its connections to the database", "count", Count, 0, false},
	// Go targets, through the admin listener.
	"goroutines": {"goroutines", "count", Count, 0, false},
	"heap_live":  {"Go live heap", "bytes", Memory, 0, true},
	// Runtimes that count their own memory (target.Target's Memory): a resident
	// PHP worker's memory_get_usage(), which a leak inside PHP grows byte by byte while
	// the RSS grows in the allocator's 2 MiB chunks. php-fpm frees a request's memory
	// when it ends: what outlives a request there is outside PHP's count, in the RSS.
	"runtime_memory": {"PHP memory in use between requests (memory_get_usage(), all its workers)", "bytes", Memory, 0, true},
	"pool_open":      {"pool: open connections", "count", Count, 0, false},
	"pool_in_use":    {"pool: connections in use", "count", Count, 0, false},
	"pool_waits":     {"pool: waits per second", "per s", Level, 1, false},
	// Load, per window.
	"achieved": {"achieved rate", "req/s", Achieved, 0, false},
	"p99":      {"p99 latency per window", "s", Level, 0.001, false},
	"errors":   {"failed requests per window", "count", Errors, 0, false},
	// The database's global figures come from its server (runners/measure/servers, Reading).
	// The database, less what every target holds (outside.go): another client's.
	"outside_connections": {"connections no target holds", "count", Count, 0, false},
	"outside_statements":  {"prepared statements on connections no target holds", "count", Count, 0, false},
	// A backend's private memory (RssAnon), not a process's RSS: judged as a runtime's count.
	"outside_memory": {"private memory of the largest server process for a connection no target holds", "bytes", Memory, 0, true},
	// The database server's process: mariadbd's, or mysqld's on --db mysql (the names
	// are older than --db, and kept so that earlier soaks compare).
	"mariadbd_rss":     {"database server RSS", "bytes", Memory, 0, false},
	"mariadbd_private": {"database server private memory (RssAnon, all its processes)", "bytes", Memory, 0, false},
	"mariadbd_fds":     {"database server open descriptors", "count", Count, 0, false},
	"mariadbd_threads": {"database server threads", "count", Count, 0, false},
}

// heldByDatabase names the series that count what the database holds for a client,
// connections and prepared statements: one that rises at the end of a soak, even
// unresolved, gives the soak its own exit status (Rising in File.Rising). A server's
// own figures say so themselves (Series.Held); the MySQL names stay for soak.json
// files written before them.
var heldByDatabase = map[string]bool{
	"db_connections": true, "threads_connected": true, "prepared_stmt_count": true, "stmt_open": true,
	"outside_connections": true, "outside_statements": true,
}

// series returns the role's series of that name, made from the catalogue on first use.
func (r *Role) series(name string) *Series {
	if s := r.find(name); s != nil {
		return s
	}
	sp, ok := specs[name]
	if !ok {
		panic("soak: no series named " + name) // a programming error: every name is above
	}
	s := &Series{Name: name, Label: sp.label, Unit: sp.unit, Kind: sp.kind, Floor: sp.floor, Points: []Point{}}
	r.Series = append(r.Series, s)
	return s
}

// addReading appends one of the server's figures, its series made on first use.
func (r *Role) addReading(t float64, rd servers.Reading) {
	s := r.find(rd.Name)
	if s == nil {
		kind, floor := Count, 0.0
		if rd.Level {
			kind, floor = Level, 1
		}
		s = &Series{Name: rd.Name, Label: rd.Label, Unit: rd.Unit, Kind: kind, Floor: floor, Held: rd.Held, Points: []Point{}}
		r.Series = append(r.Series, s)
	}
	s.Add(t, rd.Value)
	if rd.Limit != "" {
		s.Limit = &Limit{Name: rd.Limit, Value: rd.LimitValue, Used: rd.Value}
	}
}

// add appends a sample to the named series.
func (r *Role) add(name string, t, v float64) *Series {
	s := r.series(name)
	s.Add(t, v)
	return s
}

// addTree records a target's (or mariadbd's) process tree under the names given by
// prefix ("" for a target, "mariadbd_" for the database's process).
func (r *Role) addTree(prefix string, t float64, ts treeSample) {
	r.add(prefix+"rss", t, float64(ts.RSS))
	fds := r.add(prefix+"fds", t, float64(ts.FDs))
	if ts.NoFile > 0 {
		fds.Limit = &Limit{Name: "ulimit -n (per process)", Value: float64(ts.NoFile), Used: float64(ts.MaxFDs)}
	}
	r.add(prefix+"threads", t, float64(ts.Threads))
}

// addWindow records one load window.
func (v *Variant) addWindow(w Window) {
	v.Windows = append(v.Windows, w)
	a := v.add("achieved", w.T, w.Achieved)
	a.Offered = append(a.Offered, Point{T: w.T, Value: w.Offered})
	v.add("p99", w.T, w.P99)
	var failed int64
	for _, n := range w.Errors {
		failed += n
	}
	e := v.add("errors", w.T, float64(failed))
	e.Requests = append(e.Requests, Point{T: w.T, Value: float64(w.Requests)})
}
