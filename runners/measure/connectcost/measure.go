// Package connectcost measures what opening a connection costs on each way a server
// lets a client in: its authentication path (MariaDB's mysql_native_password; MySQL
// 8's caching_sha2_password, cached or full; PostgreSQL's SCRAM-SHA-256 and md5), with
// and without TLS. For each: the handshake's round trips after TCP's, the client's wait
// for an authenticated connection, and the server's CPU to accept, authenticate and
// close it (on PostgreSQL, to fork the backend too). Paths are measured in rounds,
// their order rotated each round, so that a slow moment of the machine falls on all of
// them. What differs by server is its door (mysql.go, postgres.go).
package connectcost

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"time"

	"dbbench/dsn/protocol"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// Options say which server to measure and how much.
type Options struct {
	Admin    *sql.DB // may create and drop users
	DSN      string  // the benchmark user's
	PID      int     // the server's process, whose CPU is read (and its children's)
	Rounds   int     // per path; 30 if 0
	PerRound int     // connections per path and round; 20 if 0
}

// way is one path to measure: whose credentials, and over TLS or not.
type way struct {
	path string
	tls  bool
	full bool // MySQL: a user who never connected, so the server has no cached hash
}

// door is what Measure needs of one server: the ways in, a connection on one (through
// the relay at addr), and the server's CPU.
type door interface {
	// upstream is the server's host:port, which the relay forwards to.
	upstream() string
	ways(ctx context.Context) ([]way, error)
	// dialers makes n connection openers on w through addr, with whatever they need
	// made beforehand (users), outside the measured time.
	dialers(ctx context.Context, w way, n int, addr string) ([]func(context.Context) (io.Closer, error), error)
	// cpuFrom starts counting the server's CPU; since gives what it used from then.
	cpuFrom() (since func() (time.Duration, error), err error)
	// drop removes what the door made (users).
	drop(ctx context.Context) error
}

// doors open each protocol's door (mysql.go, postgres.go).
var doors = map[protocol.Protocol]func(Options) (door, error){
	protocol.MySQL:    func(o Options) (door, error) { return newMySQLDoor(o) },
	protocol.Postgres: func(o Options) (door, error) { return newPostgresDoor(o) },
}

// doorOf is the door of the server o.DSN names.
func doorOf(o Options) (door, error) { return doors[protocol.Of(o.DSN)](o) }

// Measure opens o.Rounds × o.PerRound connections on every path the server offers,
// with and without TLS where the server has it, each path's users made beforehand and
// dropped at the end.
func Measure(ctx context.Context, o Options) (costs []*results.ConnectCost, err error) {
	o.Rounds, o.PerRound = orDefault(o.Rounds, 30), orDefault(o.PerRound, 20)
	d, err := doorOf(o)
	if err != nil {
		return nil, fmt.Errorf("connectcost: %w", err)
	}
	defer func() {
		if derr := d.drop(context.WithoutCancel(ctx)); derr != nil && err == nil {
			err = derr
		}
	}()
	ways, err := d.ways(ctx)
	if err != nil {
		return nil, err
	}
	r, err := startRelay(d.upstream())
	if err != nil {
		return nil, fmt.Errorf("connectcost: %w", err)
	}
	defer r.close()
	// One unmeasured connection on each path first: the benchmark user's hash cached
	// (the provider's first connection already did), the TLS session set up once.
	var warm sample
	for _, w := range ways {
		if err := measureWay(ctx, d, 1, r, w, &warm); err != nil {
			return nil, err
		}
	}
	samples := make([]sample, len(ways))
	for round := range o.Rounds {
		for i := range ways {
			k := (round + i) % len(ways)
			if err := measureWay(ctx, d, o.PerRound, r, ways[k], &samples[k]); err != nil {
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

// measureWay opens and closes n connections on w, one after another, and adds them
// to s.
func measureWay(ctx context.Context, d door, n int, r *relay, w way, s *sample) error {
	dials, err := d.dialers(ctx, w, n, r.addr())
	if err != nil {
		return err
	}
	since, err := d.cpuFrom()
	if err != nil {
		return fmt.Errorf("connectcost: the server's CPU: %w", err)
	}
	from := r.ended()
	for _, dial := range dials {
		t0 := time.Now()
		c, err := dial(ctx)
		if err != nil {
			return fmt.Errorf("connectcost: connect on %s (tls %v): %w", w.path, w.tls, err)
		}
		s.latency = append(s.latency, time.Since(t0).Seconds())
		c.Close()
	}
	// The last connection's close reaches the server after its Quit (Terminate): let
	// it land in this path's window, not the next one's.
	time.Sleep(5 * time.Millisecond)
	used, err := since()
	if err != nil {
		return fmt.Errorf("connectcost: the server's CPU: %w", err)
	}
	s.cpu = append(s.cpu, used.Seconds()/float64(len(dials)))
	trips, err := r.tripsFrom(from, from+len(dials))
	if err != nil {
		return err
	}
	for _, t := range trips {
		s.trips = append(s.trips, float64(t))
	}
	s.n += len(dials)
	return nil
}
