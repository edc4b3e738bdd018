package chaos

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dbbench/runners/measure/provider"
)

// Write variants of the raw layer, one per run: the short form kills the database
// under one insert and one update, the full form under each of the ops preset's.
var (
	writesShort = []string{
		"^lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=64/op=insert$",
		"^lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=8/op=update$",
	}
	writesFull = []string{
		"^lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=64/op=update$",
		"^lang=go/server=nethttp/layer=raw/stmt=prepared/conn=persistent/pool=64/op=update$",
		"^lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=64/op=update$",
		"^lang=php/server=fpm/layer=raw/stmt=interpolate/conn=persistent/pool=8/op=insert$",
		"^lang=php/server=fpm/layer=raw/stmt=interpolate/conn=persistent/pool=8/op=update$",
	}
)

// 13. The database is killed with SIGKILL while a variant writes: the run ends with exit
// status 5, restarts the server on its datadir, and finds in the table every write it
// had acknowledged (answered 2xx), which the error line and results.json count.
func TestDatabaseDiesMidWrite(t *testing.T) {
	variants := writesShort
	if full {
		variants = append(variants, writesFull...)
	}
	for _, v := range variants {
		tmp := newTmp(t)
		out := filepath.Join(tmp, "run")
		p := dbbench(t, tmp, "run", "--preset", "ops", "--variants", v, "--profile=false", "--pool-check=false",
			"--duration", "2s", "--warmup", "300ms", "--reps", "3", "--rows", "1000", "--out", out)
		if !p.waitFor(`^\[\w+ slice 2\]`, 90*time.Second) {
			t.Fatalf("%s: never reached slice 2:\n%s", v, p.errText())
		}
		time.Sleep(700 * time.Millisecond) // into the slice's writes
		p.inject("chaos: SIGKILL mariadbd", func() int { return descendant(p.cmd.Process.Pid, "mariadbd") })
		code := p.wait(120 * time.Second)
		res, reps := written(t, out)
		left := leftovers(t, tmp, nil)
		line := p.oneErrorLine(`the database died mid-write \(mariadbd pid \d+ is gone\)`)
		op := v[strings.LastIndex(v, "op=")+3 : len(v)-1]
		switch {
		case code != 5:
			t.Errorf("%s: exit %d, want 5: %s", v, code, line)
		case res == nil || res.Writes == nil:
			t.Errorf("%s: results.json holds no count of the writes after the kill (%q)", v, line)
		case res.Writes.Error != "" || len(res.Writes.Counts) != 1 || !res.Writes.Safe:
			t.Errorf("%s: writes after the kill: %+v", v, res.Writes)
		default:
			c := res.Writes.Counts[0]
			if c.Op != op || c.Acknowledged == 0 || c.Missing != 0 || !strings.Contains(line, "nothing acknowledged is missing") {
				t.Errorf("%s: %+v; line %q: want %s acknowledged, none missing, and the line to say so", v, c, line, op)
			}
			table.Add(Row{"database dies mid-write", fmt.Sprintf("SIGKILL mariadbd in slice 2 of %s", variantWords(v)),
				fmt.Sprintf("exit %d; %s: %d acknowledged, %d missing, %d more committed; %s",
					code, op, c.Acknowledged, c.Missing, c.Extra, res.Writes.Back), left,
				fmt.Sprintf("%d slices kept", reps)})
		}
	}
}

// variantWords is a variant pattern without its anchors and pool: "go raw interpolate insert".
func variantWords(pattern string) string {
	var parts []string
	for _, kv := range strings.Split(strings.Trim(pattern, "^$"), "/") {
		k, v, _ := strings.Cut(kv, "=")
		if k == "lang" || k == "layer" || k == "stmt" || k == "op" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " ")
}

// 14. The same kill on a server the user runs (--provider dsn) whose log is written
// once a second (innodb_flush_log_at_trx_commit=0): the run waits for the server to be
// back (here restarted by the test once the run says it waits), and says which setting
// can lose acknowledged writes; writes it finds missing it counts, and says so.
func TestDatabaseDiesMidWriteWithAnUnsafeLog(t *testing.T) {
	if !full {
		t.Skip("CHAOS=full: a dsn server with an unsafe setting")
	}
	tmp := newTmp(t)
	server, dsnFile := dsnServer(t, tmp, provider.Options{Rows: 1000, Log: io.Discard,
		ServerArgs: []string{"--innodb-flush-log-at-trx-commit=0"}})
	out := filepath.Join(tmp, "run")
	v := writesShort[0]
	p := dbbench(t, tmp, "run", "--preset", "ops", "--variants", v, "--provider", "dsn", "--dsn-file", dsnFile,
		"--replace-table", "users", "--profile=false", "--pool-check=false",
		"--duration", "2s", "--warmup", "300ms", "--reps", "3", "--rows", "1000", "--out", out)
	if !p.waitFor(`^\[\w+ slice 2\]`, 90*time.Second) {
		t.Fatalf("never reached slice 2:\n%s", p.errText())
	}
	time.Sleep(700 * time.Millisecond)
	p.inject("chaos: SIGKILL the dsn server", func() int { return server.PID })
	if !p.waitFor(`counting the writes it acknowledged once it is back`, 60*time.Second) {
		t.Fatalf("the run never said it waits for the server:\n%s", p.errText())
	}
	if _, err := server.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	code := p.wait(120 * time.Second)
	server.Close()
	res, _ := written(t, out)
	line := p.oneErrorLine(`the database died mid-write \(it stopped answering`)
	if code != 5 || res == nil || res.Writes == nil || len(res.Writes.Counts) != 1 {
		t.Fatalf("exit %d, writes %+v; want 5 and a count", code, res)
	}
	w, c := res.Writes, res.Writes.Counts[0]
	if w.Safe || !strings.Contains(w.Durability, "innodb_flush_log_at_trx_commit=0") || !strings.Contains(line, "set it to 1") {
		t.Errorf("durability %q (safe %v), line %q: want the unsafe setting named", w.Durability, w.Safe, line)
	}
	if (c.Missing > 0) != strings.Contains(line, "ACKNOWLEDGED WRITES ARE MISSING") {
		t.Errorf("%d missing, line %q: the line must say so exactly when some are", c.Missing, line)
	}
	table.Add(Row{"database dies mid-write, unsafe log", "SIGKILL a dsn server with innodb_flush_log_at_trx_commit=0 in slice 2 of go raw interpolate insert",
		fmt.Sprintf("exit %d; %d acknowledged, %d missing; %s", code, c.Acknowledged, c.Missing, w.Back),
		leftovers(t, tmp, nil), "the setting named"})
}
