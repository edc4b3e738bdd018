package main

import (
	"runtime"
	"time"

	"dbbench/runners/judge/poolsize"
	"dbbench/runners/measure/environment"
)

// Defaults of the production load a pool is sized for.
const (
	defaultPoolRate    = 1000
	defaultPoolP99     = 50 * time.Millisecond
	defaultPoolRTT     = 500 * time.Microsecond // a hop inside one data centre
	defaultInstances   = 4
	defaultMaxConns    = 151 // MariaDB's and MySQL's default
	defaultMaxConnsPG  = 100 // PostgreSQL's
	defaultPoolRTTText = "500µs, or --rtt when given"
)

// poolNeedFlags are the production load a pool is sized for: run's fourth answer
// (prefix "pool-") and the pool sweep (no prefix for rate and p99, as before).
type poolNeedFlags struct {
	rate               *float64
	p99, rtt           *time.Duration
	instances, maxConn *int
	appCores, dbCores  *int
	current            *int
	appMemoryMiB       *int
}

func (f *poolNeedFlags) register(fs *flagSet, prefix string) {
	f.rate = fs.Float(prefix+"rate", defaultPoolRate, above0, "size pools for this peak rate, requests per second per app instance")
	f.p99 = fs.Duration(prefix+"p99", defaultPoolP99, above0, "size pools for this p99 target")
	f.rtt = fs.Duration(prefix+"rtt", 0, atLeast0, "size pools for this round trip to the production database (default "+defaultPoolRTTText+")")
	f.instances = fs.Int("app-instances", defaultInstances, atLeast(1), "app instances sharing the database, for the max_connections advice")
	f.maxConn = fs.Int("max-connections", defaultMaxConns, atLeast(1), "the production server's max_connections (151 is MariaDB's and MySQL's default; a run whose first server is PostgreSQL takes its default, 100, unless given)")
	f.appCores = fs.Int("app-cores", runtime.NumCPU(), atLeast(1), "cores of a production app instance's host, for the CPU the pool answer models (default: this host's)")
	f.current = fs.Int(prefix+"current", 0, atLeast0, "the pool you run today: the answer says whether it holds, queues or exceeds max_connections at the rate")
	f.appMemoryMiB = fs.Int("app-memory-mib", hostMemoryMiB(), atLeast(1), "memory of a production app instance's host, MiB, for how many php-fpm children or workers it holds (default: this host's)")
}

// hostMemoryMiB is this host's memory (MemTotal of /proc/meminfo), MiB. Where that
// cannot be read (not Linux) it is 1024, a small host: the flag's default shows it in
// -h, and the pool section names the memory it divided.
func hostMemoryMiB() int {
	if kib, ok := environment.MemTotalKiB(); ok {
		return int(kib >> 10)
	}
	return 1024
}

// registerDBCores is --db-cores, apart because the pool sweep had a flag of that name
// before it meant anything: it registers its own.
func (f *poolNeedFlags) registerDBCores(fs *flagSet) {
	f.dbCores = fs.Int("db-cores", runtime.NumCPU(), atLeast(1), "cores of the production database's host, for the CPU the pool answer models (default: this host's)")
}

// need resolves the flags: the sizing distance is --pool-rtt when given, else the
// distance the run measured at (--rtt), else a data-centre hop; max_connections the
// flag, or PostgreSQL's default when the answer is for PostgreSQL and the flag is not
// given.
func (f *poolNeedFlags) need(fs *flagSet, measuredAt time.Duration, postgres bool) poolsize.Need {
	rtt := *f.rtt
	if !fs.given("pool-rtt") {
		rtt = defaultPoolRTT
		if measuredAt > 0 {
			rtt = measuredAt
		}
	}
	n := poolsize.Need{Rate: *f.rate, P99: *f.p99, RTT: rtt, Instances: *f.instances, MaxConnections: *f.maxConn,
		AppCores: *f.appCores, Current: *f.current, AppMemory: int64(*f.appMemoryMiB) << 20}
	if postgres && !fs.given("max-connections") {
		n.MaxConnections = defaultMaxConnsPG
	}
	if f.dbCores != nil {
		n.DBCores = *f.dbCores
	}
	return n
}
