package chaos

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dbbench/runners/measure/dbtest"
)

// 7. A shared database keeps its tables. A database whose own users table has a
// customer is refused by name, and nothing in it changes; beside foreign tables, a run,
// a soak and both sweeps replace only dbbench's own, leave the owner's byte for byte as
// they were, leave no scratch table, and put the server's general log settings back.
func TestSharedDatabase(t *testing.T) {
	db := dbtest.Start(t, 10)
	keep := map[int]bool{db.PID: true}
	db.RootSQL(t, `CREATE DATABASE shop;
		CREATE TABLE shop.users (id INT PRIMARY KEY, email VARCHAR(100));
		INSERT INTO shop.users VALUES (1, 'customer@example.com');
		CREATE TABLE shop.orders (id INT PRIMARY KEY, total DECIMAL(10,2));
		INSERT INTO shop.orders VALUES (1, 9.99), (2, 120.00);
		CREATE DATABASE bench;
		CREATE TABLE bench.orders (id INT PRIMARY KEY, total DECIMAL(10,2));
		INSERT INTO bench.orders VALUES (1, 9.99), (2, 120.00);
		CREATE TABLE bench.customers (id INT PRIMARY KEY, name VARCHAR(40));
		INSERT INTO bench.customers VALUES (7, 'Grace');
		SET GLOBAL log_output = 'FILE'`)
	state := func() string {
		var b strings.Builder
		for _, table := range []string{"shop.users", "shop.orders", "bench.orders", "bench.customers"} {
			fmt.Fprintf(&b, "%s %s; ", table, db.Query(t, "CHECKSUM TABLE "+table+" EXTENDED", 1))
		}
		fmt.Fprintf(&b, "general_log %s, log_output %s; ", db.Query(t, "SELECT @@GLOBAL.general_log", 0), db.Query(t, "SELECT @@GLOBAL.log_output", 0))
		fmt.Fprintf(&b, "scratch tables %s", db.Query(t, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 'dbbench_preflight'", 0))
		return b.String()
	}
	before := state()
	dsnFor := func(tmp, database string) string {
		f := filepath.Join(tmp, "dsn")
		os.WriteFile(f, []byte(strings.Replace(db.DSN(), "/dbbench", "/"+database, 1)+"\n"), 0o600)
		return f
	}
	const variant = "lang=go/layer=raw/stmt=interpolate/conn=persistent"
	var left int
	for _, c := range []struct {
		name, database string
		args           func(tmp string) []string
		refused        bool
	}{
		{"run, owner's users table", "shop", func(tmp string) []string { return runArgs(filepath.Join(tmp, "run"), goRaw) }, true},
		{"run", "bench", func(tmp string) []string { return runArgs(filepath.Join(tmp, "run"), goRaw) }, false},
		{"soak", "bench", func(tmp string) []string {
			return []string{"soak", "--duration", "10s", "--interval", "2s", "--warmup", "2s", "--capacity-time", "2s", "--capacity-warmup", "1s",
				"--variants", variant, "--rows", "1000", "--out", filepath.Join(tmp, "soak")}
		}, false},
		{"sweep pool", "bench", func(tmp string) []string {
			return []string{"sweep", "pool", "--variants", variant, "--pools", "go=1,2", "--searches", "1", "--probes", "1", "--reps", "1",
				"--duration", "300ms", "--warmup", "100ms", "--rtt", "0", "--rows", "1000", "--out", filepath.Join(tmp, "pool")}
		}, false},
		{"sweep rtt", "bench", func(tmp string) []string {
			return []string{"sweep", "rtt", "--variants", variant + "/pool=4", "--delays", "0", "--rate", "0", "--reps", "1",
				"--duration", "300ms", "--warmup", "100ms", "--rows", "1000", "--out", filepath.Join(tmp, "rtt")}
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := newTmp(t)
			p := dbbench(t, tmp, append(c.args(tmp), "--provider", "dsn", "--dsn-file", dsnFor(tmp, c.database))...)
			code := p.wait(180 * time.Second)
			outcome := fmt.Sprintf("exit %d", code)
			switch {
			case c.refused:
				line := p.oneErrorLine("shop.users")
				if code != 1 || !strings.Contains(line, "--replace-table users") || strings.Contains(p.errText(), "[check") {
					t.Errorf("exit %d, %q: want a refusal naming shop.users and --replace-table users before any target starts", code, line)
				}
				outcome = fmt.Sprintf("refused (exit %d): %q", code, tail(cause(line), 90))
			case code == 1 && c.name == "soak" && strings.Contains(p.lastLine(), "series flagged"):
				// A ten-second soak on a shared machine may flag its load as short; what
				// this test asks is whose tables it touched.
				outcome += " (a series flagged)"
			case code != 0:
				t.Errorf("exit %d:\n%s", code, p.errText())
			}
			if after := state(); after != before {
				t.Errorf("the owner's tables or the server's settings changed:\nbefore %s\nafter  %s", before, after)
			} else {
				outcome += "; the owner's 4 tables byte-identical, log settings as they were"
			}
			left += leftovers(t, tmp, keep)
			table.Add(Row{"shared database", c.name + " with --provider dsn beside the owner's tables", outcome, left, "-"})
		})
	}
}
