package provider

import (
	"context"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"dbbench/fixtures"
	"dbbench/runners/measure/topology"
	"dbbench/runners/results"
)

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// gone fails the test if the embedded server's process or directory is still there.
func assertGone(t *testing.T, pid int, dir string) {
	t.Helper()
	if pid == 0 || dir == "" {
		t.Fatalf("no pid (%d) or dir (%q) recorded", pid, dir)
	}
	if err := syscall.Kill(pid, 0); err != syscall.ESRCH {
		t.Errorf("mariadbd pid %d still exists (kill 0: %v)", pid, err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("datadir %s left behind (stat: %v)", dir, err)
	}
}

func TestEmbeddedLoadsVerifiesAndCleansUp(t *testing.T) {
	ctx := context.Background()
	t0 := time.Now()
	db, err := Start(ctx, Options{Rows: fixtures.DefaultRows, MaxConnections: 300, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("embedded start + load + verify of %d rows: %v", fixtures.DefaultRows, time.Since(t0))
	pid, dir := db.PID, db.Dir
	defer func() {
		db.Close()
		assertGone(t, pid, dir)
	}()

	pool, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var max int
	if err := pool.QueryRow("SELECT @@max_connections").Scan(&max); err != nil || max != 300 {
		t.Fatalf("max_connections = %d, %v; want 300", max, err)
	}
	var bind string
	if err := pool.QueryRow("SELECT @@bind_address").Scan(&bind); err != nil || bind != "127.0.0.1" {
		t.Fatalf("bind_address = %q, %v; want 127.0.0.1", bind, err)
	}
	var name string
	if err := pool.QueryRow("SELECT name FROM users WHERE id = 42").Scan(&name); err != nil || name != fixtures.Name(42) {
		t.Fatalf("users[42] = %q, %v; want %q", name, err, fixtures.Name(42))
	}
	if err := fixtures.Verify(ctx, pool, fixtures.DefaultRows); err != nil {
		t.Fatalf("Verify on a fresh table: %v", err)
	}
	// A corrupted row makes the checksum fail; so does a missing one.
	if _, err := pool.Exec("UPDATE users SET name = 'Mallory' WHERE id = 777"); err != nil {
		t.Fatal(err)
	}
	if err := fixtures.Verify(ctx, pool, fixtures.DefaultRows); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("Verify after corrupting a name = %v, want a checksum error", err)
	}
	if _, err := pool.Exec("DELETE FROM users WHERE id = 5"); err != nil {
		t.Fatal(err)
	}
	if err := fixtures.Verify(ctx, pool, fixtures.DefaultRows); err == nil || !strings.Contains(err.Error(), "rows") {
		t.Fatalf("Verify after deleting a row = %v, want a row-count error", err)
	}
}

func TestTwoEmbeddedServersGetTwoPorts(t *testing.T) {
	ctx := context.Background()
	a, err := Start(ctx, Options{Rows: 10, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Start(ctx, Options{Rows: 10, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if mysqlConfig(a).Addr == mysqlConfig(b).Addr || mysqlConfig(a).Passwd == mysqlConfig(b).Passwd {
		t.Fatalf("two servers share an address (%s, %s) or a password", a.Addr(), b.Addr())
	}
}

func TestNoMariadbdOnPath(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Start(context.Background(), Options{Rows: 10, Log: testLog{t}})
	if err == nil || !strings.Contains(err.Error(), "no mariadbd on PATH") {
		t.Fatalf("Start with empty PATH = %v, want 'no mariadbd on PATH'", err)
	}
}

// mariadbd deletes every "#sql*" file in its tmpdir when it starts (bootstrap included).
// Sharing /tmp, two embedded servers starting at once deleted each other's temporary
// tables and mariadb-install-db failed; another MariaDB on the machine would lose its
// own. Each server must have a tmpdir of its own, so a "#sql" file in /tmp survives.
func TestEmbeddedLeavesSharedTmpdirAlone(t *testing.T) {
	canary, err := os.CreateTemp("", "#sql-dbbench-canary-*")
	if err != nil {
		t.Fatal(err)
	}
	canary.Close()
	defer os.Remove(canary.Name())
	db, err := Start(context.Background(), Options{Rows: 10, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := os.Stat(canary.Name()); err != nil {
		t.Fatalf("a #sql file in %s was removed while the embedded server started: %v", os.TempDir(), err)
	}
}

// The error of a failed install carries the server's own lines, not the advice page's tail.
func TestInstallCauseKeepsTheServersLines(t *testing.T) {
	out := `Installing MariaDB/MySQL system tables in '/tmp/x/data' ...
2026-11-25 13:24:41 1 [Warning] Could not remove temporary table: '/tmp/#sql-temptable-9c9-1-3', error: 2
ERROR: 1051  Unknown table 'mysql.tmp_user_sys'
2026-11-25 13:24:41 0 [ERROR] Aborting

Installation of system tables failed!  Examine the logs in
/tmp/x/data for more information.

Please check all of the above before submitting a bug report
at https://mariadb.org/jira
`
	got := installCause(out)
	for _, want := range []string{"Unknown table 'mysql.tmp_user_sys'", "Could not remove temporary table", "[ERROR] Aborting"} {
		if !strings.Contains(got, want) {
			t.Errorf("installCause = %q, want it to hold %q", got, want)
		}
	}
	if strings.Contains(got, "jira") {
		t.Errorf("installCause = %q: the advice page is not the cause", got)
	}
	if got := installCause("mariadbd: unknown option '--bogus'\n"); got != "mariadbd: unknown option '--bogus'" {
		t.Errorf("installCause of a line with no marker = %q, want the line itself", got)
	}
}

// In a network namespace the server binds the namespace's address, its process is the
// one started there, and the benchmark user reaches it from the clients' addresses.
func TestEmbeddedInANamespace(t *testing.T) {
	if err := topology.Check(results.Netns); err != nil {
		t.Skip(err)
	}
	topo, err := topology.Start(context.Background(), results.Netns)
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Close()
	db, err := Start(context.Background(), Options{Rows: 100, Log: testLog{t}, Place: topo.DB, Clients: []string{topo.Load.Addr}})
	if err != nil {
		t.Fatal(err)
	}
	pid, dir := db.PID, db.Dir
	defer func() {
		db.Close()
		assertGone(t, pid, dir)
	}()
	if host, _, _ := net.SplitHostPort(db.Addr()); host != topo.DB.Addr {
		t.Fatalf("the server is at %s, want %s", db.Addr(), topo.DB.Addr)
	}
	pool, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var host string
	if err := pool.QueryRow("SELECT SUBSTRING_INDEX(USER(), '@', -1)").Scan(&host); err != nil || host != topo.Load.Addr {
		t.Fatalf("the runner connects as dbbench@%q (%v), want @%s", host, err, topo.Load.Addr)
	}
	own, _ := os.Readlink("/proc/self/ns/net")
	if ns, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/net"); err != nil || ns == own {
		t.Fatalf("mariadbd pid %d runs in namespace %q (%v), not in the db role's", pid, ns, err)
	}
}

// Instruments turns performance_schema on for that server only, PerfSchema turns it on
// with every instrument off; the settings of every other server, and the list they are
// written from, keep it off as MariaDB ships.
func TestSettingsWithInstruments(t *testing.T) {
	on, counting, off := Settings(Options{Instruments: true}), Settings(Options{PerfSchema: true}), Settings(Options{})
	if !slices.Contains(on, "--performance-schema=1") || slices.Contains(on, psOff) || slices.Contains(on, instrumentsOff) {
		t.Errorf("with Instruments: %v, want performance_schema on with its instruments", on)
	}
	if !slices.Contains(counting, "--performance-schema=1") || !slices.Contains(counting, instrumentsOff) || slices.Contains(counting, psOff) {
		t.Errorf("with PerfSchema: %v, want performance_schema on with every instrument off", counting)
	}
	if !slices.Contains(off, psOff) || !slices.Contains(mariadb.settings, psOff) {
		t.Errorf("without: %v (MariaDB's settings %v), want performance_schema off in both", off, mariadb.settings)
	}
}

// mysqlConfig is the go-sql-driver config a server on MySQL's protocol is reached by.
func mysqlConfig(d *DB) *mysql.Config { return d.conn.(mysqlConn).cfg }
