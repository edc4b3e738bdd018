// Package connectcost measures what opening a connection costs on each way a server
// lets a client in: its authentication path (MariaDB's mysql_native_password; MySQL
// 8's caching_sha2_password, cached or full), with and without TLS. For each: the
// handshake's round trips after TCP's, the client's wait for an authenticated
// connection, and the server's CPU to accept, authenticate and close it. Paths are
// measured in rounds, their order rotated each round, so that a slow moment of the
// machine falls on all of them.
package connectcost

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"dbbench/dsn/protocol"
	"dbbench/runners/procstat"
	"dbbench/runners/results"
	"dbbench/runners/secret"
	"dbbench/runners/stats"
)

// Options say which server to measure and how much.
type Options struct {
	Admin    *sql.DB // may create and drop users
	DSN      string  // the benchmark user's
	PID      int     // the server's process, whose CPU is read
	Rounds   int     // per path; 30 if 0
	PerRound int     // connections per path and round; 20 if 0
}

// way is one path to measure: whose credentials, and over TLS or not.
type way struct {
	path string
	tls  bool
	full bool // a user who never connected: the server has no cached hash
}

// Measure opens o.Rounds × o.PerRound connections on every path the server offers the
// benchmark user's plugin, with and without TLS where the server has it. A full
// caching_sha2_password path needs a user the server has not seen: each of its
// connections is a user made for it beforehand (outside the measured time) and
// dropped at the end.
func Measure(ctx context.Context, o Options) (costs []*results.ConnectCost, err error) {
	o.Rounds, o.PerRound = orDefault(o.Rounds, 30), orDefault(o.PerRound, 20)
	cfg, err := mysql.ParseDSN(o.DSN)
	if err != nil {
		return nil, fmt.Errorf("connectcost: %w", err)
	}
	ways, err := waysOf(ctx, o.Admin)
	if err != nil {
		return nil, err
	}
	r, err := startRelay(cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("connectcost: %w", err)
	}
	defer r.close()
	users := &freshUsers{admin: o.Admin}
	defer func() {
		if derr := users.drop(context.WithoutCancel(ctx)); derr != nil && err == nil {
			err = derr
		}
	}()
	// One unmeasured connection on each path first: the benchmark user's hash cached
	// (the provider's first connection already did), the TLS session set up once.
	var warm sample
	for _, w := range ways {
		if err := measureWay(ctx, Options{PID: o.PID, PerRound: 1}, cfg, r, users, w, &warm); err != nil {
			return nil, err
		}
	}
	samples := make([]sample, len(ways))
	for round := range o.Rounds {
		for i := range ways {
			k := (round + i) % len(ways)
			if err := measureWay(ctx, o, cfg, r, users, ways[k], &samples[k]); err != nil {
				return nil, err
			}
		}
	}
	for i, w := range ways {
		c, err := samples[i].cost(w, o.Rounds)
		if err != nil {
			return nil, fmt.Errorf("connectcost: %s: %w", w.path, err)
		}
		costs = append(costs, c)
	}
	return costs, nil
}

func orDefault(n, otherwise int) int {
	if n > 0 {
		return n
	}
	return otherwise
}

// waysOf lists the paths the benchmark user's plugin has, each without and (where the
// server has TLS) with it.
func waysOf(ctx context.Context, admin *sql.DB) ([]way, error) {
	var plugin, tls string
	err := admin.QueryRowContext(ctx, "SELECT plugin FROM mysql.user WHERE user = SUBSTRING_INDEX(CURRENT_USER(), '@', 1) LIMIT 1").Scan(&plugin)
	if err != nil {
		return nil, fmt.Errorf("connectcost: the benchmark user's authentication plugin: %w", err)
	}
	if err := admin.QueryRowContext(ctx, "SELECT @@have_ssl").Scan(&tls); err != nil {
		return nil, fmt.Errorf("connectcost: does the server have TLS: %w", err)
	}
	var ways []way
	for _, onTLS := range []bool{false, true} {
		if onTLS && tls != "YES" {
			continue
		}
		if plugin != "caching_sha2_password" {
			ways = append(ways, way{path: plugin, tls: onTLS})
			continue
		}
		full := protocol.PathFullRSA
		if onTLS {
			full = protocol.PathFull // the password goes over TLS, no RSA key
		}
		ways = append(ways, way{path: protocol.PathCached, tls: onTLS}, way{path: full, tls: onTLS, full: true})
	}
	return ways, nil
}

// sample is what one path's rounds measured.
type sample struct {
	latency []float64 // seconds, one per connection
	cpu     []float64 // the server's seconds per connection, one per round
	trips   []float64 // one per connection
	n       int
}

// cost summarizes s as benchstat would: the median of the connections' waits and of
// the rounds' server CPU per connection, each with its 95% interval (infinite below 6
// values).
func (s *sample) cost(w way, rounds int) (*results.ConnectCost, error) {
	l, err := stats.Summarize(s.latency, "sec/op")
	if err != nil {
		return nil, err
	}
	c, err := stats.Summarize(s.cpu, "sec/op")
	if err != nil {
		return nil, err
	}
	return &results.ConnectCost{Path: w.path, TLS: w.tls, Connections: s.n, RoundTrips: stats.Median(s.trips),
		Latency: l.Center, LatencyLo: l.Lo, LatencyHi: l.Hi, ServerCPU: c.Center, ServerCPULo: c.Lo, ServerCPUHi: c.Hi, RoundsOfEach: rounds}, nil
}

// measureWay opens and closes o.PerRound connections on w, one after another, and
// adds them to s.
func measureWay(ctx context.Context, o Options, base *mysql.Config, r *relay, users *freshUsers, w way, s *sample) error {
	cfgs := make([]*mysql.Config, o.PerRound)
	for i := range cfgs {
		c := base.Clone()
		c.Addr, c.DBName = r.addr(), ""
		if w.tls {
			c.TLSConfig = "skip-verify" // the server's own certificate, made for the run
		}
		if w.full {
			var err error
			if c.User, c.Passwd, err = users.make(ctx); err != nil {
				return err
			}
		}
		cfgs[i] = c
	}
	before, err := procstat.TakeCounts(o.PID)
	if err != nil {
		return fmt.Errorf("connectcost: the server's CPU: %w", err)
	}
	from := r.ended()
	for _, c := range cfgs {
		conn, err := mysql.NewConnector(c)
		if err != nil {
			return fmt.Errorf("connectcost: %w", err)
		}
		t0 := time.Now()
		dc, err := conn.Connect(ctx)
		if err != nil {
			return fmt.Errorf("connectcost: connect on %s (tls %v): %w", w.path, w.tls, err)
		}
		s.latency = append(s.latency, time.Since(t0).Seconds())
		dc.Close()
	}
	// The last connection's close reaches the server after its Quit: let it land in
	// this path's window, not the next one's.
	time.Sleep(5 * time.Millisecond)
	after, err := procstat.TakeCounts(o.PID)
	if err != nil {
		return fmt.Errorf("connectcost: the server's CPU: %w", err)
	}
	s.cpu = append(s.cpu, after.Sub(before).Run.Seconds()/float64(len(cfgs)))
	trips, err := r.tripsFrom(from, from+len(cfgs))
	if err != nil {
		return err
	}
	for _, t := range trips {
		s.trips = append(s.trips, float64(t))
	}
	s.n += len(cfgs)
	return nil
}

// freshUsers makes users the server has never authenticated, and drops them.
type freshUsers struct {
	admin *sql.DB
	names []string
}

func (f *freshUsers) make(ctx context.Context) (user, password string, err error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	user, password = fmt.Sprintf("dbbench_cc_%d", len(f.names)), "Cc-"+hex.EncodeToString(b)
	secret.Register(password)
	if _, err := f.admin.ExecContext(ctx, "CREATE USER '"+user+"'@'%' IDENTIFIED BY '"+password+"'"); err != nil {
		return "", "", fmt.Errorf("connectcost: create a user for the full path: %w", err)
	}
	f.names = append(f.names, user)
	return user, password, nil
}

func (f *freshUsers) drop(ctx context.Context) error {
	for _, u := range f.names {
		if _, err := f.admin.ExecContext(ctx, "DROP USER IF EXISTS '"+u+"'@'%'"); err != nil {
			return fmt.Errorf("connectcost: drop %s: %w", u, err)
		}
	}
	return nil
}
