package roundtrip

import (
	"context"
	"maps"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"dbbench/fixtures"
	"dbbench/runners/measure/dbtest"
)

// pgxModes are pgx v5's five execution modes, by the names its default_query_exec_mode
// connection parameter takes, and the messages and round trips each sends per query in
// steady state (its statement cache warm), counted on the wire.
var pgxModes = []struct {
	mode     string
	messages map[string]int64
	trips    int64
}{
	// Prepared once per connection and cached: Bind, Execute, Sync.
	{"cache_statement", map[string]int64{"Bind": 1, "Execute": 1, "Sync": 1}, 1},
	// The statement's description cached, the statement not: an unnamed statement
	// parsed, bound and its portal described, in one flight.
	{"cache_describe", map[string]int64{"Parse": 1, "Bind": 1, "Describe": 1, "Execute": 1, "Sync": 1}, 1},
	// Described every time: Parse, Describe, Sync, and once the answer is back, Bind,
	// Execute, Sync on the same unnamed statement.
	{"describe_exec", map[string]int64{"Parse": 1, "Describe": 1, "Bind": 1, "Execute": 1, "Sync": 2}, 2},
	// Unnamed and undescribed, the same messages as cache_describe in one flight; the
	// arguments go as text, since no description says their types.
	{"exec", map[string]int64{"Parse": 1, "Bind": 1, "Describe": 1, "Execute": 1, "Sync": 1}, 1},
	// Client-side interpolation: one text query.
	{"simple_protocol", map[string]int64{"Query": 1}, 1},
}

// Each pgx mode's messages per query, read off the wire by the proxy: the counts a
// PostgreSQL variant's expectations come from.
func TestPostgresProxyCountsPgxModes(t *testing.T) {
	pg := dbtest.StartPostgres(t, 100)
	proxy, err := StartPostgresProxyOn("127.0.0.1", pg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	ctx := context.Background()
	const n = 20
	for _, m := range pgxModes {
		t.Run(m.mode, func(t *testing.T) {
			u, _ := url.Parse(pg.URL())
			u.Host = proxy.Addr()
			q := u.Query()
			q.Set("default_query_exec_mode", m.mode)
			u.RawQuery = q.Encode()
			conn, err := pgx.Connect(ctx, u.String())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			get := func(id int) {
				var name string
				if err := conn.QueryRow(ctx, "SELECT name FROM users WHERE id = $1", id).Scan(&name); err != nil {
					t.Fatal(err)
				}
				if name != fixtures.Name(uint32(id)) {
					t.Fatalf("user %d: %q, want %q", id, name, fixtures.Name(uint32(id)))
				}
			}
			get(1) // warms the statement or description cache
			proxy.Reset()
			for id := 2; id < 2+n; id++ {
				get(id)
			}
			got := proxy.Counts()
			want := map[string]int64{}
			for k, v := range m.messages {
				want[k] = v * n
			}
			if !maps.Equal(got, want) || proxy.Trips() != m.trips*n {
				t.Errorf("%d queries sent %v in %d round trips, want %v in %d", n, got, proxy.Trips(), want, m.trips*n)
			}
		})
	}
}

// A connection's start-up on the wire: Startup, then SCRAM's two answers, each waiting
// for the server; Terminate at the end.
func TestPostgresProxyCountsTheStartup(t *testing.T) {
	pg := dbtest.StartPostgres(t, 10)
	proxy, err := StartPostgresProxyOn("127.0.0.1", pg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	u, _ := url.Parse(pg.URL())
	u.Host = proxy.Addr()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	trips := proxy.Trips()
	conn.Close(ctx)
	// Close returns once Terminate is written; the proxy counts it a moment later.
	var got map[string]int64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if got = proxy.Counts(); got["Terminate"] > 0 || time.Now().After(deadline) {
			break
		}
	}
	want := map[string]int64{"Connect": 1, "Startup": 1, "Password": 2, "Terminate": 1}
	if !maps.Equal(got, want) || trips != 3 {
		t.Errorf("a connection sent %v in %d round trips, want %v in 3", got, trips, want)
	}
}
