package connectcost

import (
	"context"
	"fmt"
	"maps"
	"testing"

	"dbbench/dsn/protocol"
	"dbbench/runners/measure/dbtest"
)

// Each server's paths, with and without TLS, and their handshakes' round trips after
// TCP's, counted by a relay that reads no protocol: MariaDB's mysql_native_password in
// one; MySQL 8's caching_sha2_password in one when the hash is cached and three when
// not (the client fetches the RSA key, then sends the password encrypted with it).
// TLS 1.3 adds one (the SSL request waits for nothing; ClientHello waits for the
// server's flight); over it the full path sends the password in the clear, without the
// key: three in all. The users the full path needed are gone afterwards.
func TestEachPathOnBothServers(t *testing.T) {
	type key struct {
		path string
		tls  bool
	}
	for _, tc := range []struct {
		server string
		start  func(testing.TB, int) *dbtest.DB
		trips  map[key]float64
	}{
		{"mariadb", dbtest.Start, map[key]float64{{"mysql_native_password", false}: 1, {"mysql_native_password", true}: 2}},
		{"mysql", dbtest.StartMySQL, map[key]float64{{protocol.PathCached, false}: 1, {protocol.PathFullRSA, false}: 3,
			{protocol.PathCached, true}: 2, {protocol.PathFull, true}: 3}},
	} {
		t.Run(tc.server, func(t *testing.T) {
			db := tc.start(t, 10)
			admin, err := db.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close()
			costs, err := Measure(context.Background(), Options{Admin: admin, DSN: db.DSN(), PID: db.PID, Rounds: 6, PerRound: 2})
			if err != nil {
				t.Fatal(err)
			}
			got := map[key]float64{}
			for _, c := range costs {
				t.Logf("%s tls=%v: %d connections, %.2f round trips, latency %.0f µs, server CPU %.0f µs [%.0f, %.0f]",
					c.Path, c.TLS, c.Connections, c.RoundTrips, c.Latency*1e6, c.ServerCPU*1e6, c.ServerCPULo*1e6, c.ServerCPUHi*1e6)
				if c.Connections != 12 || c.Latency <= 0 || c.ServerCPU <= 0 {
					t.Errorf("%s tls=%v: %d connections, latency %v, server CPU %v; want 12 and both above 0", c.Path, c.TLS, c.Connections, c.Latency, c.ServerCPU)
				}
				got[key{c.Path, c.TLS}] = c.RoundTrips
			}
			if !maps.Equal(got, tc.trips) {
				t.Errorf("round trips by path %v, want %v", got, tc.trips)
			}
			if left := db.Query(t, "SELECT COUNT(*) FROM mysql.user WHERE user LIKE 'dbbench\\_cc\\_%'", 0); left != "0" {
				t.Errorf("%s users for the full path left behind", left)
			}
		})
	}
}

// PostgreSQL's paths, counted the same way: SCRAM-SHA-256 in three round trips
// (startup, then the client's first and final SCRAM messages, each answered), md5 in
// two (startup, then the hashed password); TLS adds two before the startup (the SSL
// request, answered 'S', and TLS 1.3's handshake), and one or two more as the server's
// two session tickets leave after the client's Finished (relay.go): whether they go
// out together is the scheduler's, so a median of 12 connections read 3 in most
// fresh-clone runs and 3.5 in one (6 and 7 trips among its connections).
// Every connection forks a backend, whose CPU the postmaster's tree counts. The md5
// role is gone afterwards.
func TestEachPathOnPostgres(t *testing.T) {
	pg := dbtest.StartPostgres(t, 10)
	admin, err := pg.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	costs, err := Measure(context.Background(), Options{Admin: admin, DSN: pg.URL(), PID: pg.PID(), Rounds: 6, PerRound: 2})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, c := range costs {
		t.Logf("%s tls=%v: %d connections, %.2f round trips, latency %.0f µs, server CPU %.0f µs [%.0f, %.0f]",
			c.Path, c.TLS, c.Connections, c.RoundTrips, c.Latency*1e6, c.ServerCPU*1e6, c.ServerCPULo*1e6, c.ServerCPUHi*1e6)
		if c.Connections != 12 || c.Latency <= 0 || c.ServerCPU < 0 {
			t.Errorf("%s tls=%v: %d connections, latency %v, server CPU %v; want 12, above 0 and not below 0", c.Path, c.TLS, c.Connections, c.Latency, c.ServerCPU)
		}
		got[fmt.Sprintf("%s tls=%v", c.Path, c.TLS)] = c.RoundTrips
	}
	if got["scram-sha-256 tls=false"] != 3 || got["md5 tls=false"] != 2 || len(got) != 4 {
		t.Errorf("round trips by path %v, want scram-sha-256 3 and md5 2 without TLS, both with it", got)
	}
	for _, path := range []string{"scram-sha-256", "md5"} {
		if added := got[path+" tls=true"] - got[path+" tls=false"]; added < 2 || added > 4 {
			t.Errorf("%s: TLS adds %v round trips, want 2 to 4 (%v)", path, added, got)
		}
	}
	var left int
	if err := admin.QueryRow("SELECT count(*) FROM pg_roles WHERE rolname = 'dbbench_md5'").Scan(&left); err != nil || left != 0 {
		t.Errorf("md5 role left behind: %d, %v", left, err)
	}
}

// Every protocol has its door: a protocol added without one fails here, not with a nil
// func at run time.
func TestEveryProtocolHasADoor(t *testing.T) {
	for _, p := range protocol.All {
		if doors[p] == nil {
			t.Errorf("protocol %s has no door in doors (measure.go)", p)
		}
	}
}
