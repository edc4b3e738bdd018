package report

import (
	"strings"
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// A comparison measured on both servers differs only when its intervals are apart and
// its ratios more than the margin apart; the sentence names it with what the counts
// say differs (here what a new connection costs each server), and a comparison whose
// intervals overlap is counted among those that agree.
func TestDBAnswerNamesWhatDiffersAndWhy(t *testing.T) {
	variant := func(lang, stmt, conn, db string) *results.Variant {
		v := &results.Variant{
			Variant:       matrix.Variant{Lang: lang, Server: "nethttp", Layer: "raw", Stmt: stmt, Conn: conn, Pool: 8, Database: db},
			DatabaseTitle: dbTitle(t, db),
			Library:       "database/sql",
			Kind:          "raw",
			Roundtrips:    &results.Roundtrips{Wire: map[string]float64{"Query": 1}},
		}
		v.Key = "lang=" + lang + "/server=nethttp/layer=raw/stmt=" + stmt + "/conn=" + conn + "/pool=8"
		if conn == "per-request" {
			v.Roundtrips.Wire = map[string]float64{"Connect": 1, "Query": 1, "Quit": 1}
		}
		if db != "" {
			v.Key += "/db=" + db
		}
		return v
	}
	ratio := func(r, lo, hi float64) estimate {
		return estimate{Judged: results.Judged{Estimate: stats.Estimate{Value: r, Lo: lo, Hi: hi, N: 8, Confidence: 0.95}}, OK: true}
	}
	conn := func(db string, r, lo, hi float64) finding {
		return finding{Question: questions.Conn, Base: variant("go", "interpolate", "persistent", db), Other: variant("go", "interpolate", "per-request", db), QPS: ratio(r, lo, hi)}
	}
	stmt := func(db string, r, lo, hi float64) finding {
		return finding{Question: questions.Stmt, Base: variant("go", "prepare", "persistent", db), Other: variant("go", "interpolate", "persistent", db), QPS: ratio(r, lo, hi)}
	}
	fs := []finding{conn("", 0.33, 0.32, 0.35), stmt("", 1.60, 1.50, 1.70), conn("mysql", 0.28, 0.26, 0.30), stmt("mysql", 1.53, 1.46, 1.60)}
	var vs []*results.Variant
	for _, f := range fs {
		vs = append(vs, f.Base, f.Other)
	}
	d := &data{run: &results.Run{Variants: vs, Connections: map[string][]*results.ConnectCost{
		"mariadb": {{Path: "mysql_native_password", ServerCPU: 177e-6}},
		"mysql":   {{Path: "caching_sha2_password, cached", ServerCPU: 551e-6}, {Path: "caching_sha2_password, full, RSA key fetched", ServerCPU: 2.4e-3}},
	}}}
	a, s, ok := d.dbAnswer(fs)
	if !ok {
		t.Fatal("no answer for a run on two servers")
	}
	want := "The answers above are MariaDB's. Of 2 comparisons measured on both, 1 differs on MySQL 8.0 (intervals apart, beyond ±2%): " +
		"database/sql per-request (Go, interpolate) 0.28× against 0.33×."
	if a.Sentence != want {
		t.Errorf("sentence\n%s\nwant\n%s", a.Sentence, want)
	}
	// Why, from the counts, in the section.
	why := "database/sql per-request (Go, interpolate) 0.28× against 0.33× " +
		"(a new connection costs the server 551 µs of CPU on MySQL 8.0 (caching_sha2_password, cached) against 177 µs on MariaDB (mysql_native_password)); the rest agree."
	if len(s.Paragraphs) != 1 || !strings.HasSuffix(s.Paragraphs[0], why) {
		t.Errorf("section paragraphs %q, want one ending %q", s.Paragraphs, why)
	}
	if rows := s.Grids[0].Rows; len(rows) != 2 || rows[0][3].Lines[0] != "yes" || rows[1][3].Lines[0] != "no" {
		t.Errorf("comparison rows %v, want the connection's to differ and the statement mode's not", rows)
	}
	if _, _, ok := d.dbAnswer(fs[:2]); ok {
		t.Error("an answer for a run on one server")
	}
	if strings.Contains(a.Sentence+s.Paragraphs[0], "full") {
		t.Error("the full path, which no variant takes in steady state, stands for a connection's cost")
	}
}

// A run whose first server is PostgreSQL and whose second is the same server behind
// PgBouncer: no twin needs to differ for the answer, which gives the range of each
// variant against itself (those with an estimate) and names the variants that failed
// through the pooler alone (not describe_exec, which failed on both).
func TestDBAnswerGivesEachVariantAgainstItselfAndWhatFailed(t *testing.T) {
	variant := func(stmt, db string) *results.Variant {
		return &results.Variant{
			Variant:       matrix.Variant{Lang: "go", Server: "nethttp", Layer: "pgx", Stmt: stmt, Conn: "persistent", Pool: 64, Database: db},
			DatabaseTitle: dbTitle(t, db),
			DB:            true,
			Key:           "lang=go/server=nethttp/layer=pgx/stmt=" + stmt + "/conn=persistent/pool=64/db=" + db,
		}
	}
	self := func(stmt string, r, lo, hi float64) finding {
		return finding{Question: questions.DB, Base: variant(stmt, "postgres"), Other: variant(stmt, "pgbouncer"),
			QPS: estimate{Judged: results.Judged{Estimate: stats.Estimate{Value: r, Lo: lo, Hi: hi, N: 8, Confidence: 0.95}}, OK: true}}
	}
	fs := []finding{self("exec", 0.93, 0.90, 0.95), self("simple_protocol", 0.90, 0.87, 0.93)}
	fs = append(fs, finding{Question: questions.DB, Base: variant("exec", "postgres"), Other: variant("exec", "pgbouncer")}) // no estimate
	d := &data{run: &results.Run{Variants: []*results.Variant{variant("exec", "postgres")}},
		invalid: []*results.Variant{variant("cache_statement", "pgbouncer"), variant("describe_exec", "pgbouncer"), variant("describe_exec", "postgres")}}
	a, _, ok := d.dbAnswer(fs)
	if !ok {
		t.Fatal("no answer for a run on a server and its pooler")
	}
	want := "The answers above are PostgreSQL's. Each variant on PgBouncer keeps, of its throughput on PostgreSQL, 0.90× [0.87, 0.93] (go/nethttp/pgx/simple_protocol/persistent/pool=64) " +
		"to 0.93× [0.90, 0.95] (go/nethttp/pgx/exec/persistent/pool=64); invalid on PgBouncer alone (the error each gave is in the appendix): " +
		"go/nethttp/pgx/cache_statement/persistent/pool=64."
	if a.Title != "PostgreSQL and PgBouncer" || a.Sentence != want {
		t.Errorf("answer %q:\n%s\nwant\n%s", a.Title, a.Sentence, want)
	}
}
