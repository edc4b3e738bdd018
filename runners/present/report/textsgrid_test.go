package report

import (
	"strings"
	"testing"

	"dbbench/dsn/protocol"
	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// The working-set table: a row per variant at get, a column per working set, each
// cell the ratio to one text and the prepares per request at the client and through
// the pooler, or the error where the cache's overflow failed the variant.
func TestTextsGridGivesEachWorkingSetOrItsError(t *testing.T) {
	variant := func(op string, texts int, parses float64) *results.Variant {
		key := "lang=go/server=nethttp/layer=pgx/stmt=cache_statement/conn=persistent/pool=64"
		if op != "" {
			key += "/op=" + op
		}
		return &results.Variant{
			Variant: matrix.Variant{Lang: "go", Server: "nethttp", Layer: "pgx", Stmt: "cache_statement", Conn: "persistent", Pool: 64, Op: op},
			Texts:   texts,
			DB:      true,
			Key:     key,
			Roundtrips: &results.Roundtrips{Requests: 100, Protocol: protocol.Postgres, Wire: map[string]float64{"Parse": parses, "Bind": 1, "Execute": 1, "Sync": 1},
				Pooler: map[string]float64{"server_parse": parses}},
		}
	}
	get, hundred, thousand := variant("", 0, 0), variant("texts100", 100, 0), variant("texts1000", 1000, 0.49)
	hundred.ServerMemory = 3 << 20
	thousand.InvalidReason = "round-trip warm-up: get id 7 = 503; database error: ERROR: prepared statement \"s\" does not exist (SQLSTATE 26000)"
	d := &data{run: &results.Run{Variants: []*results.Variant{get, hundred, thousand}}}
	fs := []finding{{Question: questions.Texts, Base: get, Other: hundred,
		QPS: estimate{Judged: results.Judged{Estimate: stats.Estimate{Value: 0.97, Lo: 0.95, Hi: 0.99, N: 8, Confidence: 0.95}}, OK: true}}}
	g := d.textsGrid(fs)
	if g == nil {
		t.Fatal("no working-set table for a run with working sets")
	}
	if got := strings.Join(g.Head, " | "); got != "variant | 1 text | 100 texts | 1000 texts" {
		t.Errorf("head %q", got)
	}
	if len(g.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(g.Rows))
	}
	cells := g.Rows[0]
	if got, want := strings.Join(cells[2].Lines, " · "), "QPS 0.97× [0.95, 0.99] · prepares/req: client 0, pooler to server 0 · server memory +3.00 MiB"; got != want {
		t.Errorf("100 texts:\n%s\nwant\n%s", got, want)
	}
	if got, want := strings.Join(cells[3].Lines, " "), `fails: ERROR: prepared statement "s" does not exist (SQLSTATE 26000)`; got != want {
		t.Errorf("1000 texts:\n%s\nwant\n%s", got, want)
	}
	if (&data{run: d.run}).textsGrid(nil) != nil {
		t.Error("a working-set table without working-set comparisons")
	}
}

// Answer 2's word on the working sets: each variant at the largest, its cost where it
// prepares again, its error where the overflow failed it, and what the texts did not
// slow.
func TestTextsPointerNamesOverflowAndWhatHeld(t *testing.T) {
	variant := func(stmt, op string, texts int, prepares float64) *results.Variant {
		key := "lang=go/server=nethttp/layer=raw/stmt=" + stmt + "/conn=persistent/pool=64"
		if op != "" {
			key += "/op=" + op
		}
		return &results.Variant{
			Variant:    matrix.Variant{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: stmt, Conn: "persistent", Pool: 64, Op: op},
			Library:    "database/sql + go-sql-driver/mysql",
			Texts:      texts,
			DB:         true,
			Key:        key,
			Roundtrips: &results.Roundtrips{Requests: 100, Log: map[string]float64{"Prepare": prepares, "Execute": 1}},
		}
	}
	prepared, preparedK := variant("prepared", "", 0, 0), variant("prepared", "texts1000", 1000, 0)
	preparedK.InvalidReason = "database error: Error 1461 (42000): Can't create more than max_prepared_stmt_count statements (current value: 16382)"
	interp, interpK := variant("interpolate", "", 0, 0), variant("interpolate", "texts1000", 1000, 0)
	d := &data{run: &results.Run{Variants: []*results.Variant{prepared, preparedK, interp, interpK}}}
	fs := []finding{{Question: questions.Texts, Base: interp, Other: interpK,
		QPS: estimate{Judged: results.Judged{Estimate: stats.Estimate{Value: 1.00, Lo: 0.99, Hi: 1.02, N: 8, Confidence: 0.95}}, OK: true}}}
	want := "At 1000 statement texts against one (below): database/sql prepared fails (Error 1461 (42000): Can't create more than max_prepared_stmt_count statements (current value: 16382)); " +
		"database/sql interpolate keeps 1.00× [0.99, 1.02]. Where the statements outnumber a cache or a limit, they cost as above; what this many texts did not slow: database/sql interpolate. " +
		"To keep 1000 texts prepared, set max_prepared_stmt_count to at least 1000 texts × 64 connections = 64000 (MariaDB and MySQL ship 16382), or interpolate."
	if got := d.textsPointer(fs); got != want {
		t.Errorf("pointer:\n%s\nwant\n%s", got, want)
	}
	if got := (&data{run: &results.Run{Variants: []*results.Variant{prepared}}}).textsPointer(nil); got != "" {
		t.Errorf("a run without working sets: %q", got)
	}
}
