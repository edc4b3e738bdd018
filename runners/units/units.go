// Package units names every figure dbbench writes to bench.txt and says, for each, which
// way is better and whether it is an exact count. Measurement writes these names, the
// report and compare read them: this is the one list, as benchunit is for benchstat.
//
// Names are benchfmt units in base units (sec, B, not ns or MB), so benchstat reads
// them back as written. Every name ends in /s (a rate: higher is better) or /op (a cost
// of one request: lower is better).
//
// It also prints figures for people (format.go): percents, signs, times, sizes, counts
// with their noun and a dash for what is missing, one function per distinct text, so
// that every package prints a figure the same way.
package units

import "strings"

// The figures of one repetition.
const (
	QPS    = "req/s"
	P50    = "p50-sec/op"
	P90    = "p90-sec/op"
	P99    = "p99-sec/op"
	P999   = "p99.9-sec/op"
	AppCPU = "app-cpu-sec/op"
	DBCPU  = "db-cpu-sec/op"
	GenCPU = "gen-cpu-sec/op"
	// PoolerCPU is a transaction pooler's CPU per request, where the targets reach the
	// server through one the run started (PgBouncer).
	PoolerCPU = "pooler-cpu-sec/op"
	// Commands counts every MySQL client command per request plus each new connection;
	// Roundtrips those the client waits for.
	Commands   = "commands/op"
	Roundtrips = "roundtrips/op"
	Errors     = "errors/op"
	// Bytes per request each way between target and database, on the wire.
	ToDB   = "to-db-B/op"
	FromDB = "from-db-B/op"
)

// Counts per request that do not depend on the machine's speed, read around each
// repetition: the target's heap allocations (Go), system calls and voluntary context
// switches of each role, a PHP request's peak memory.
const (
	Allocs     = "allocs/op"
	AllocBytes = "B/op"
	GCCycles   = "gc-cycles/op"
	// ReqPeak is PHP's real peak of a request (memory_get_peak_usage(true)), in whole
	// 2 MiB chunks of its allocator: the same for nearly every layer (php/README.md,
	// "Memory per request", has the figures). results.Values leaves it out.
	ReqPeak = "req-peak-B/op"
	// ReqPeakAlloc is the most a resident worker's request had emalloc'ed at once
	// (memory_get_peak_usage() after memory_reset_peak_usage(), the worker's own
	// objects included): what a layer's request holds, to the byte. php-fpm's status
	// page has no such figure.
	ReqPeakAlloc = "req-peak-alloc-B/op"
)

// Syscalls and Switches are the units of a role's (app, db, gen) system calls and
// voluntary context switches per request. Syscalls counts the read(2) and write(2)
// families only (/proc/PID/io syscr and syscw): sockets read with recv(2) and written
// with send(2) are not in it, which is how MariaDB and PHP's streams use theirs
// (results.Variant.Counted says where the count is blind).
func Syscalls(role string) string { return role + "-syscalls/op" }
func Switches(role string) string { return role + "-vcsw/op" }

// Direction says which way a unit improves.
type Direction int

const (
	Unknown Direction = 0
	Higher  Direction = 1  // higher is better: rates such as req/s
	Lower   Direction = -1 // lower is better: costs per request such as sec/op
)

func (d Direction) String() string {
	switch d {
	case Higher:
		return "higher"
	case Lower:
		return "lower"
	}
	return "unknown"
}

// Better says which direction of unit is an improvement. Units per second are rates
// (req/s, B/s): higher is better. Units per operation are costs of one request
// (sec/op, p99-sec/op, app-cpu-sec/op, roundtrips/op, B/op): lower is better. This
// agrees with benchfmt's built-in defaults for ns/op, MB/s, B/op and allocs/op, and
// covers any latency percentile or CPU account without a list.
func Better(unit string) Direction {
	switch {
	case strings.HasSuffix(unit, "/s"):
		return Higher
	case strings.HasSuffix(unit, "/op"):
		return Lower
	}
	return Unknown
}

// exact are the units that count something deterministic: repetitions should agree
// exactly, because the count depends on the code path, not on timing.
// DBDials and DBPrepares are the server's own count, per request, of the connections
// it accepted (MySQL's Connections, PostgreSQL's pg_stat_database sessions) and the
// statements it prepared (MySQL's Com_stmt_prepare; PostgreSQL counts none), read
// around each slice: a pool that churns dials under load, a statement cache that
// overflows prepares again.
const (
	DBDials    = "db-dials/op"
	DBPrepares = "db-prepares/op"
)

// PoolerParses and PoolerBinds are a transaction pooler's own count, per request, of
// what it passed on (PgBouncer 1.21 and later, SHOW STATS): the Parse messages it sent
// the server (a statement prepared again on another server connection counts again),
// and the Bind messages. Where the pooler keeps prepared statements itself, the server
// sees its Parses, not the client's.
const (
	PoolerParses = "pooler-parses/op"
	PoolerBinds  = "pooler-binds/op"
)

var exact = map[string]bool{Commands: true, Roundtrips: true, PoolerParses: true, PoolerBinds: true}

// Exact reports whether unit counts something deterministic. Such units are summarized
// by their value and compared without a test, as benchstat does for units marked
// `assume=exact` (benchfile writes that mark).
func Exact(unit string) bool { return exact[unit] }
