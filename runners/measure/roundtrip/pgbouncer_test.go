package roundtrip

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"dbbench/fixtures"
	"dbbench/runners/measure/dbtest"
	"dbbench/runners/measure/provider"
)

// connectMode opens one pgx connection to u in mode.
func connectMode(t *testing.T, u, mode string) *pgx.Conn {
	t.Helper()
	pu, _ := url.Parse(u)
	q := pu.Query()
	q.Set("default_query_exec_mode", mode)
	pu.RawQuery = q.Encode()
	conn, err := pgx.Connect(context.Background(), pu.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// getUser reads user id's name and checks it.
func getUser(ctx context.Context, conn *pgx.Conn, id int) error {
	var name string
	if err := conn.QueryRow(ctx, "SELECT name FROM users WHERE id = $1", id).Scan(&name); err != nil {
		return err
	}
	if name != fixtures.Name(uint32(id)) {
		return fmt.Errorf("user %d read as %q, want %q", id, name, fixtures.Name(uint32(id)))
	}
	return nil
}

// getByName reads the id of user id's name: a second statement, of another parameter
// type, so that a statement bound to the other's description shows.
func getByName(ctx context.Context, conn *pgx.Conn, id int) error {
	var got int
	if err := conn.QueryRow(ctx, "SELECT id FROM users WHERE name = $1", fixtures.Name(uint32(id))).Scan(&got); err != nil {
		return err
	}
	if got != id {
		return fmt.Errorf("user named %q read as id %d, want %d", fixtures.Name(uint32(id)), got, id)
	}
	return nil
}

func sqlState(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

// Through PgBouncer 1.18 in transaction mode, two clients sharing its one server
// connection: pgx's default mode prepares a statement named after its text on the
// server, so the second client's prepare of the same text fails (42P05, "already
// exists"); the other four modes leave nothing named on the server and work. The
// messages the pooler sends the server per query are the client's.
func TestPgxModesThroughPgBouncer(t *testing.T) {
	pg := dbtest.StartPostgres(t, 100)
	toServer, err := StartPostgresProxyOn("127.0.0.1", pg.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer toServer.Close()
	ctx := context.Background()
	bouncer, err := provider.StartPgBouncer(ctx, pg, 1, toServer.Addr(), provider.PgBouncerSettings{Version: "1.18"})
	if err != nil {
		t.Fatal(err)
	}
	defer bouncer.Close()
	for _, m := range pgxModes {
		t.Run(m.mode, func(t *testing.T) {
			a, b := connectMode(t, bouncer.URL(), m.mode), connectMode(t, bouncer.URL(), m.mode)
			errA := getUser(ctx, a, 1)
			errB := getUser(ctx, b, 2)
			if m.mode == "cache_statement" {
				if errA != nil || sqlState(errB) != "42P05" {
					t.Fatalf("first client: %v; second: %v; want the second to fail with 42P05", errA, errB)
				}
				t.Logf("through PgBouncer: %v", errB)
				return
			}
			if errA != nil || errB != nil {
				t.Fatalf("through PgBouncer: %v, %v", errA, errB)
			}
			toServer.Reset()
			const n = 10
			for id := 3; id < 3+n; id++ {
				if err := getUser(ctx, a, id); err != nil {
					t.Fatal(err)
				}
			}
			got, want := toServer.Counts(), map[string]int64{}
			for k, v := range m.messages {
				want[k] = v * n
			}
			if !maps.Equal(got, want) {
				t.Errorf("PgBouncer sent the server %v for %d queries, want the client's %v", got, n, want)
			}
		})
	}
}

// The same through two server connections and eight clients, each of its own id range,
// each alternating two statements: the one-flight modes never fail; describe_exec's
// two flights may land on two server connections, which the test reports (logged)
// without deciding.
func TestPgxModesThroughPgBouncerConcurrently(t *testing.T) {
	pg := dbtest.StartPostgres(t, 1000)
	ctx := context.Background()
	bouncer, err := provider.StartPgBouncer(ctx, pg, 2, "", provider.PgBouncerSettings{Version: "1.18"})
	if err != nil {
		t.Fatal(err)
	}
	defer bouncer.Close()
	const clients, queries = 8, 100
	for _, mode := range []string{"cache_describe", "describe_exec", "exec", "simple_protocol"} {
		t.Run(mode, func(t *testing.T) {
			var mu sync.Mutex
			failed, example := map[string]int{}, map[string]string{}
			var wg sync.WaitGroup
			for c := range clients {
				conn := connectMode(t, bouncer.URL(), mode)
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range queries {
						query := getUser
						if i%2 == 1 {
							query = getByName
						}
						if err := query(ctx, conn, 1+c*queries+i); err != nil {
							mu.Lock()
							// By SQLSTATE (a wrong answer has none), one message of each kept.
							code := cmp.Or(sqlState(err), "wrong answer")
							failed[code]++
							if _, seen := example[code]; !seen {
								example[code] = err.Error()
							}
							mu.Unlock()
						}
					}
				}()
			}
			wg.Wait()
			if mode == "describe_exec" {
				t.Logf("describe_exec through PgBouncer, %d clients × %d queries on 2 server connections: failures by SQLSTATE %v, e.g. %v", clients, queries, failed, example)
				return
			}
			if len(failed) > 0 {
				t.Errorf("%s through PgBouncer: failures by SQLSTATE %v, e.g. %v", mode, failed, example)
			}
		})
	}
}

// pgx's default mode (cache_statement: a statement named after its text, prepared once
// per connection) through PgBouncer in transaction mode, two clients on one server
// connection: 1.18 and 1.24 with max_prepared_statements = 0 pass the second client's
// Parse of the same name to the server, which refuses it (42P05); 1.24 at its default
// keeps the statements itself and renames them per server connection, so both work.
func TestCacheStatementThroughPgBouncerVersions(t *testing.T) {
	pg := dbtest.StartPostgres(t, 100)
	ctx := context.Background()
	off := 0
	for _, c := range []struct {
		name  string
		s     provider.PgBouncerSettings
		works bool
	}{
		{"1.18", provider.PgBouncerSettings{Version: "1.18"}, false},
		{"1.24 max_prepared_statements=0", provider.PgBouncerSettings{Version: "1.24", MaxPreparedStatements: &off}, false},
		{"1.24 default", provider.PgBouncerSettings{Version: "1.24"}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			bouncer, err := provider.StartPgBouncer(ctx, pg, 1, "", c.s)
			if err != nil {
				t.Fatal(err)
			}
			defer bouncer.Close()
			before, err := bouncer.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			a, b := connectMode(t, bouncer.URL(), "cache_statement"), connectMode(t, bouncer.URL(), "cache_statement")
			if c.works {
				defer checkPoolerStats(t, ctx, bouncer, before)
			}
			for id := 1; id <= 5; id++ {
				errA, errB := getUser(ctx, a, id), getUser(ctx, b, id+10)
				switch {
				case errA != nil:
					t.Fatalf("%s (%s): the first client failed: %v", c.name, bouncer.Describe(), errA)
				case c.works && errB != nil:
					t.Fatalf("%s (%s): the second client failed: %v", c.name, bouncer.Describe(), errB)
				case !c.works && sqlState(errB) != "42P05":
					t.Fatalf("%s (%s): the second client got %v, want 42P05 (prepared statement already exists)", c.name, bouncer.Describe(), errB)
				case !c.works:
					return // a failed connection stays failed: once is the finding
				}
			}
		})
	}
}

// checkPoolerStats: two clients' 5 queries each of one statement, through one server
// connection: the pooler saw 2 Parses (one per client), sent the server 1, and passed
// 10 Binds (SHOW STATS' counts).
func checkPoolerStats(t *testing.T, ctx context.Context, bouncer *provider.PgBouncer, before map[string]int64) {
	after, err := bouncer.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int64{}
	for _, k := range []string{"client_parse", "server_parse", "bind"} {
		got[k] = after[k] - before[k]
	}
	if want := map[string]int64{"client_parse": 2, "server_parse": 1, "bind": 10}; !maps.Equal(got, want) {
		t.Errorf("%s: SHOW STATS moved by %v, want %v", bouncer.Describe(), got, want)
	}
}
