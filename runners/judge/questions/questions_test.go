package questions

import (
	"fmt"
	"slices"
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/results"
)

func variant(lang, server, layer, stmt, conn string, pool int) *results.Variant {
	key := fmt.Sprintf("lang=%s/server=%s/layer=%s/stmt=%s/conn=%s/pool=%d", lang, server, layer, stmt, conn, pool)
	return &results.Variant{Key: key, Variant: matrix.Variant{Lang: lang, Server: server, Layer: layer, Stmt: stmt, Conn: conn, Pool: pool}, DB: layer != "hello"}
}

func TestPairsDifferInOneKeyFromTheReference(t *testing.T) {
	r := &results.Run{Langs: map[string]*results.Lang{
		"go":  {Baseline: "raw", Default: "nethttp"},
		"php": {Baseline: "raw", Default: "fpm"},
	}}
	r.Variants = []*results.Variant{
		variant("go", "nethttp", "hello", "none", "none", 8),
		variant("go", "nethttp", "raw", "prepare", "persistent", 8),
		variant("go", "nethttp", "raw", "interpolate", "persistent", 8),
		variant("go", "nethttp", "orm", "interpolate", "persistent", 8),
		variant("go", "nethttp", "orm", "interpolate", "persistent", 16), // no raw at pool 16
		variant("go", "nethttp", "raw", "interpolate", "per-request", 8),
		variant("php", "fpm", "raw", "interpolate", "persistent", 8),
		variant("php", "worker", "raw", "interpolate", "persistent", 8),
	}
	var got []string
	for _, p := range Pairs(r, nil) {
		got = append(got, fmt.Sprintf("%s: %s/%s/%s/%s against %s", p.Question, p.Other.Server, p.Other.Layer, p.Other.Stmt, p.Other.Conn, p.Base.Key))
	}
	want := []string{
		"stmt: nethttp/raw/interpolate/persistent against lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=8",
		"layer: nethttp/orm/interpolate/persistent against lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=8",
		"conn: nethttp/raw/interpolate/per-request against lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=8",
		"server: worker/raw/interpolate/persistent against lang=php/server=fpm/layer=raw/stmt=interpolate/conn=persistent/pool=8",
	}
	if !slices.Equal(got, want) {
		t.Errorf("pairs:\n%q\nwant:\n%q", got, want)
	}
	// keep leaves variants out, as a run leaves out invalid ones.
	noPHP := Pairs(r, func(v *results.Variant) bool { return v.Lang != "php" })
	if len(noPHP) != 3 {
		t.Errorf("%d pairs without PHP, want 3", len(noPHP))
	}
}

// A run of two revisions compares each variant at B with itself at A, hello too, and
// nothing else: a layer at B is never compared with the raw driver at A.
func TestARunOfTwoRevisionsComparesOnlyTheRevisions(t *testing.T) {
	r := &results.Run{Langs: map[string]*results.Lang{"go": {Baseline: "raw", Default: "nethttp"}},
		AB: &results.AB{A: &results.Rev{ID: "aaaa111"}, B: &results.Rev{ID: "aaaa111-b"}}}
	for _, rev := range []string{"aaaa111", "aaaa111-b"} {
		for _, v := range []*results.Variant{
			variant("go", "nethttp", "hello", "none", "none", 8),
			variant("go", "nethttp", "raw", "interpolate", "persistent", 8),
			variant("go", "nethttp", "orm", "interpolate", "persistent", 8),
		} {
			v.Rev, v.Key = rev, v.Key+"/rev="+rev
			r.Variants = append(r.Variants, v)
		}
	}
	r.Variants = append(r.Variants, variant("go", "nethttp", "raw", "prepare", "persistent", 8)) // at A only
	r.Variants[len(r.Variants)-1].Rev = "aaaa111"
	var got []string
	for _, p := range Pairs(r, nil) {
		got = append(got, fmt.Sprintf("%s: %s %s against %s", p.Question, p.Other.Layer, p.Other.Rev, p.Base.Rev))
	}
	want := []string{"rev: hello aaaa111-b against aaaa111", "rev: raw aaaa111-b against aaaa111", "rev: orm aaaa111-b against aaaa111"}
	if !slices.Equal(got, want) {
		t.Errorf("pairs:\n%q\nwant:\n%q", got, want)
	}
	if n := len(Pairs(r, func(v *results.Variant) bool { return v.Layer != "orm" })); n != 2 {
		t.Errorf("%d pairs without orm, want 2", n)
	}
}

func withOp(v *results.Variant, op string, rows int) *results.Variant {
	v.Op, v.Rows, v.Key = op, rows, v.Key+"/op="+op
	return v
}

// Each op's layers are compared with the raw driver at the same op, never another's;
// each list with the list of fewest rows of the same variant.
func TestOpsAreComparedAtTheirOwnOpAndListsByRows(t *testing.T) {
	r := &results.Run{Langs: map[string]*results.Lang{"go": {Baseline: "raw", Default: "nethttp"}}}
	r.Variants = []*results.Variant{
		variant("go", "nethttp", "raw", "interpolate", "persistent", 8),
		withOp(variant("go", "nethttp", "raw", "interpolate", "persistent", 8), "list100", 100),
		withOp(variant("go", "nethttp", "raw", "interpolate", "persistent", 8), "list10", 10),
		withOp(variant("go", "nethttp", "raw", "interpolate", "persistent", 8), "list50", 50),
		withOp(variant("go", "nethttp", "orm", "interpolate", "persistent", 8), "list100", 100),
		withOp(variant("go", "nethttp", "orm", "interpolate", "persistent", 8), "update", 0),
		withOp(variant("go", "nethttp", "orm", "prepare", "persistent", 8), "update", 0),
		withOp(variant("go", "nethttp", "gorm", "interpolate", "persistent", 8), "insert", 0), // raw has no insert
	}
	var got []string
	for _, p := range Pairs(r, nil) {
		got = append(got, fmt.Sprintf("%s: %s/%s/%s against %s/%s/%s", p.Question, p.Other.Layer, p.Other.Stmt, p.Other.Op, p.Base.Layer, p.Base.Stmt, p.Base.Op))
	}
	want := []string{
		"rows: raw/interpolate/list100 against raw/interpolate/list10",
		"rows: raw/interpolate/list50 against raw/interpolate/list10",
		"layer: orm/interpolate/list100 against raw/interpolate/list100",
		"stmt: orm/interpolate/update against orm/prepare/update",
	}
	if !slices.Equal(got, want) {
		t.Errorf("pairs:\n%q\nwant:\n%q", got, want)
	}
}

// On PostgreSQL a layer is compared with the baseline its variant names (LayerRef: pgx,
// whose database/sql driver it runs on) and at its mode against the reference its
// variant names (StmtRef: pgx's default), not with MySQL's raw driver and prepare.
func TestAVariantsOwnReferencesOnPostgres(t *testing.T) {
	r := &results.Run{Langs: map[string]*results.Lang{"go": {Baseline: "raw", Default: "nethttp"}}}
	onPG := func(layer, stmt string) *results.Variant {
		v := variant("go", "nethttp", layer, stmt, "persistent", 8)
		v.Key, v.Database, v.StmtRef = v.Key+"/db=postgres", "postgres", "cache_statement"
		if layer != "pgx" {
			v.LayerRef = "pgx"
		}
		return v
	}
	r.Variants = []*results.Variant{
		variant("go", "nethttp", "raw", "interpolate", "persistent", 8),
		onPG("pgx", "cache_statement"), onPG("pgx", "simple_protocol"),
		onPG("sqlx", "cache_statement"), onPG("sqlx", "simple_protocol"),
	}
	var got []string
	for _, p := range Pairs(r, nil) {
		got = append(got, fmt.Sprintf("%s: %s/%s against %s/%s", p.Question, p.Other.Layer, p.Other.Stmt, p.Base.Layer, p.Base.Stmt))
	}
	want := []string{
		"stmt: pgx/simple_protocol against pgx/cache_statement",
		"layer: sqlx/cache_statement against pgx/cache_statement",
		"layer: sqlx/simple_protocol against pgx/simple_protocol",
		"stmt: sqlx/simple_protocol against sqlx/cache_statement",
	}
	if !slices.Equal(got, want) {
		t.Errorf("pairs:\n%q\nwant:\n%q", got, want)
	}
}

// A layer as shipped is compared with the same layer at its language's tuned modes,
// which differ in two keys; a layer without the tuned statement mode, at its own.
func TestShippedPairsWithTheTunedModes(t *testing.T) {
	r := &results.Run{Langs: map[string]*results.Lang{"php": {Baseline: "raw", Default: "fpm"}, "go": {Baseline: "raw", Default: "nethttp"}}}
	shipped := variant("php", "fpm", "eloquent", "prepare", "per-request", 8)
	shipped.Tuned = &results.Tuned{Stmt: "interpolate", Conn: "persistent"}
	bun := variant("go", "nethttp", "bun", "interpolate", "shipped", 8)
	bun.Tuned = &results.Tuned{Stmt: "cache_statement", Conn: "persistent"}
	tuned := variant("php", "fpm", "eloquent", "interpolate", "persistent", 8)
	r.Variants = []*results.Variant{shipped, tuned, variant("php", "fpm", "eloquent", "prepare", "persistent", 8), bun,
		variant("go", "nethttp", "bun", "interpolate", "persistent", 8)}
	var got []string
	for _, p := range Pairs(r, nil) {
		if p.Question == Shipped {
			got = append(got, p.Other.Layer+" against "+p.Base.Stmt+"/"+p.Base.Conn)
		}
	}
	if want := []string{"eloquent against interpolate/persistent", "bun against interpolate/persistent"}; !slices.Equal(got, want) {
		t.Errorf("shipped pairs %q, want %q", got, want)
	}
}

// Related rows: every form of every layer against the raw driver's JOIN of the same
// request, and a layer's eager form against its own lazy one; a page is never a list's
// "fewer rows" twin.
func TestRelatedFormsAgainstTheRawJoinAndTheirOwnLazy(t *testing.T) {
	r := &results.Run{Langs: map[string]*results.Lang{"php": {Baseline: "raw", Default: "fpm"}}}
	form := func(layer, fetch string, rows int) *results.Variant {
		v := variant("php", "fpm", layer, "interpolate", "persistent", 8)
		v.Op, v.Fetch, v.Orders, v.Rows = "orders_"+fetch, fetch, 10, rows
		if rows > 0 {
			v.Op, v.Orders = "listorders_"+fetch, 3
		}
		v.Key += "/op=" + v.Op
		return v
	}
	list10 := variant("php", "fpm", "raw", "interpolate", "persistent", 8)
	list10.Op, list10.Rows, list10.Key = "list10", 10, list10.Key+"/op=list10"
	r.Variants = []*results.Variant{form("raw", "join", 0), form("raw", "eager", 0), form("eloquent", "eager", 0), form("eloquent", "lazy", 0),
		form("raw", "join", 20), form("eloquent", "lazy", 20), list10}
	var got []string
	for _, p := range Pairs(r, nil) {
		if p.Question == Fetch || p.Question == Lazy || p.Question == Rows {
			got = append(got, fmt.Sprintf("%s: %s %s against %s %s", p.Question, p.Other.Layer, p.Other.Op, p.Base.Layer, p.Base.Op))
		}
	}
	want := []string{
		"fetch: raw orders_eager against raw orders_join",
		"fetch: eloquent orders_eager against raw orders_join",
		"lazy: eloquent orders_eager against eloquent orders_lazy",
		"fetch: eloquent orders_lazy against raw orders_join",
		"fetch: eloquent listorders_lazy against raw listorders_join",
	}
	if !slices.Equal(got, want) {
		t.Errorf("pairs:\n%q\nwant:\n%q", got, want)
	}
}
