package matrix

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func loadRepoMatrix(t *testing.T) *Matrix {
	t.Helper()
	m, err := Load("../../matrix.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestRepoMatrixPresets(t *testing.T) {
	m := loadRepoMatrix(t)
	for _, name := range []string{"smoke", "quick", "full"} {
		p, err := m.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		vs := m.Expand(p)
		seen := map[string]bool{}
		for _, v := range vs {
			if err := m.Check(v); err != nil {
				t.Errorf("preset %s expands to a variant Check refuses: %v", name, err)
			}
			if seen[v.Key()] {
				t.Errorf("preset %s lists %s twice", name, v.Key())
			}
			seen[v.Key()] = true
		}
		t.Logf("preset %s: %d variants", name, len(vs))
	}
	// quick has one pool per language, and every layer of every server: question 1
	// covers every library.
	quick, _ := m.Preset("quick")
	combos := map[string]bool{}
	layers := map[string]bool{}
	for _, v := range m.Expand(quick) {
		layers[v.Lang+"/"+v.Server+"/"+v.Layer] = true
		v.Pool = 0
		combos[v.Key()] = true
	}
	if got := len(m.Expand(quick)); got != len(combos) {
		t.Errorf("quick has %d variants but %d distinct lang×server×layer×stmt×conn", got, len(combos))
	}
	for _, v := range m.Expand(full(t, m)) {
		if !layers[v.Lang+"/"+v.Server+"/"+v.Layer] && v.Server == m.Langs[v.Lang].ServerNames()[0] {
			t.Errorf("quick has no variant of %s/%s/%s", v.Lang, v.Server, v.Layer)
		}
	}
	if _, err := m.Preset("quik"); err == nil || !strings.Contains(err.Error(), "smoke") {
		t.Errorf("unknown preset error = %v, want one listing the presets", err)
	}
}

func full(t *testing.T, m *Matrix) *Preset {
	t.Helper()
	p, err := m.Preset("full")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCheckRefusesNonsense(t *testing.T) {
	m := loadRepoMatrix(t)
	for _, tc := range []struct{ name, want string }{
		{"lang=go/layer=hello/stmt=prepare/conn=none/pool=1", `no stmt "prepare"`},
		{"lang=php/server=apache/layer=raw/stmt=prepare/conn=persistent/pool=1", `no server "apache"`},
		{"lang=go/layer=raw/stmt=none/conn=persistent/pool=1", `no stmt "none"`},
		{"lang=php/layer=raw/stmt=prepared/conn=persistent/pool=1", `no stmt "prepared"`},
		{"lang=go/layer=hibernate/stmt=prepare/conn=persistent/pool=1", `no layer "hibernate"`},
		{"lang=rust/layer=raw/stmt=prepare/conn=persistent/pool=1", `unknown lang "rust"`},
		{"lang=go/layer=raw/stmt=prepare/conn=pooled/pool=1", `no conn "pooled"`},
	} {
		if _, err := m.Resolve(tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve(%s) = %v, want an error containing %s", tc.name, err, tc.want)
		}
	}
}

func TestParseNameRoundTrip(t *testing.T) {
	v := Variant{Lang: "go", Server: "nethttp", Layer: "orm", Stmt: "interpolate", Conn: "persistent", Pool: 64}
	want := "BenchmarkSingleRow/lang=go/server=nethttp/layer=orm/stmt=interpolate/conn=persistent/pool=64"
	if v.Name() != want {
		t.Fatalf("Name() = %s, want %s", v.Name(), want)
	}
	for _, s := range []string{want, v.Key()} {
		got, err := ParseName(s)
		if err != nil || got != v {
			t.Errorf("ParseName(%s) = %+v, %v", s, got, err)
		}
	}
	legacy, err := ParseName("lang=go/layer=orm/stmt=interpolate/conn=persistent/pool=64")
	if err != nil || legacy.Server != "" || legacy.Layer != "orm" {
		t.Errorf("ParseName of a name without server= = %+v, %v; want the variant with no server", legacy, err)
	}
	for _, bad := range []string{"lang=go", "lang=go/layer=raw/stmt=x/conn=y/pool=0", "lang=go/layer=raw/server=s/stmt=x/conn=y/pool=1",
		"layer=raw/lang=go/stmt=x/conn=y/pool=1", "lang=go/layer=raw/stmt=x/conn=y/pool=many"} {
		if _, err := ParseName(bad); err == nil {
			t.Errorf("ParseName(%s) accepted a malformed name", bad)
		}
	}
}

func TestExpectedAddsMatchingRules(t *testing.T) {
	m, err := Parse("t.yaml", []byte(`
langs:
  go:
    baseline: raw
    servers: {s: {launcher: l, pool: p}}
    layers:
      raw: {kind: raw, library: r, version_of: m, stmt: [prepare, interpolate], conn: [persistent, per-request]}
roundtrips:
  - {match: "stmt=prepare/", commands: {Prepare: 1, Execute: 1, Close stmt: 1}}
  - {match: "stmt=interpolate/", commands: {Query: 1}}
  - {match: "conn=per-request/", commands: {Connect: 1, Quit: 1}}
presets:
  p: {include: [".*"], pools: {go: [4]}, connections: 1, warmup: 1s, duration: 1s, reps: 1, budget: 1m}
  q: {include: [".*"], pools: {go: [4]}, connections: 1, warmup: 1s, duration: 1s, reps: 1, budget: 1m, precision: 2.5%}
`))
	if err != nil {
		t.Fatal(err)
	}
	if p, q := m.Presets["p"].Precision, m.Presets["q"].Precision; p != 0 || q != 0.025 {
		t.Errorf("precision %v without the key (want 0, the runner's default) and %v for 2.5%% (want 0.025)", p, q)
	}
	v := Variant{Lang: "go", Server: "s", Layer: "raw", Stmt: "prepare", Conn: "per-request", Pool: 4}
	got := m.Expected(v)
	want := map[string]int{"Prepare": 1, "Execute": 1, "Close stmt": 1, "Connect": 1, "Quit": 1}
	if len(got) != len(want) {
		t.Fatalf("Expected = %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Fatalf("Expected = %v, want %v", got, want)
		}
	}
}

// Every typo gets one error naming the file, the line and what was allowed.
func TestTyposNameFileLineAndAllowed(t *testing.T) {
	base := `langs:
  go:
    baseline: raw
    servers: {s: {launcher: l, pool: p}}
    layers:
      raw: {kind: raw, library: r, version_of: m, stmt: [prepare], conn: [persistent]}
      hello: {db: false}
presets:
  p: {include: [".*"], pools: {go: [4]}, connections: 1, warmup: 1s, duration: 1s, reps: 1, budget: 1m}
`
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown top key", base + "exlude: []\n", `m.yaml:10: unknown key "exlude" in the matrix (allowed: langs, ops, dbs, exclude, roundtrips, presets)`},
		{"unknown stmt", strings.Replace(base, "[prepare]", "[prepard]", 1), `m.yaml:6: unknown stmt "prepard" (allowed: prepare, prepared, interpolate, cache_statement, cache_describe, describe_exec, exec, simple_protocol, binary_parameters)`},
		{"unknown conn", strings.Replace(base, "[persistent]", "[persistant]", 1), `m.yaml:6: unknown conn "persistant" (allowed: persistent, per-request, shipped)`},
		{"unknown layer key", strings.Replace(base, "conn:", "con:", 1), `m.yaml:6: unknown key "con" in layer raw (allowed: db, kind, library, version_of, stmt, conn, was, dbs, stmt_ref, shipped, fetch)`},
		{"unknown preset key", strings.Replace(base, "reps: 1", "reps: 1, rep: 2", 1), `m.yaml:9: unknown key "rep" in preset p (allowed: about, include`},
		{"pool for unknown lang", strings.Replace(base, "{go: [4]}", "{goo: [4]}", 1), `m.yaml:9: unknown key "goo" in pools (allowed: go)`},
		{"bad duration", strings.Replace(base, "warmup: 1s", "warmup: 1 sec", 1), `m.yaml:9: warmup: "1 sec" is not a positive duration`},
		{"bad regexp", strings.Replace(base, `".*"`, `"(("`, 1), `m.yaml:9: include: error parsing regexp`},
		{"precision without %", strings.Replace(base, "budget: 1m", "budget: 1m, precision: 3", 1), `m.yaml:9: precision: "3" is not a percentage (like 2%)`},
		{"precision of 100%", strings.Replace(base, "budget: 1m", "budget: 1m, precision: 100%", 1), `m.yaml:9: precision: "100%" is not a percentage`},
		{"unknown command", base + "roundtrips:\n  - {match: x, commands: {Prepair: 1}}\n", `m.yaml:11: unknown key "Prepair" in commands (allowed: Connect, Quit`},
		{"unknown kind", strings.Replace(base, "kind: raw", "kind: micro-orm", 1), `m.yaml:6: unknown kind "micro-orm" (allowed: raw, builder, orm)`},
		{"no kind", strings.Replace(base, "kind: raw, ", "", 1), `m.yaml:6: missing key "kind"`},
		{"no version_of", strings.Replace(base, "version_of: m, ", "", 1), `m.yaml:6: missing key "version_of"`},
		{"stmt on a layer without database", strings.Replace(base, "{db: false}", "{db: false, stmt: [prepare]}", 1), `m.yaml:7: layer hello uses no database (db: false), so it takes no stmt`},
		{"baseline not raw", strings.Replace(base, "baseline: raw", "baseline: hello", 1), `m.yaml:3: baseline of go is "hello": want a layer of kind raw`},
		{"no servers", strings.Replace(base, "    servers: {s: {launcher: l, pool: p}}\n", "", 1), `m.yaml:3: missing key "servers"`},
		{"server without launcher", strings.Replace(base, "launcher: l, ", "", 1), `m.yaml:4: missing key "launcher"`},
		{"selects nothing", strings.Replace(base, `".*"`, `"^lang=php"`, 1), `m.yaml:9: preset p selects no variant`},
		{"unknown request", base + "ops: {get: {request: get}, list: {request: lst}}\n", `m.yaml:10: unknown request "lst" (allowed: get, list, insert, update, orders, listorders)`},
		{"list without rows", base + "ops: {get: {request: get}, list: {request: list}}\n", `m.yaml:10: op list: a list takes rows (its limit), and only a list`},
		{"rows on insert", base + "ops: {get: {request: get}, insert: {request: insert, rows: 3}}\n", `m.yaml:10: op insert: a list takes rows`},
		{"no get", base + "ops: {insert: {request: insert}}\n", `m.yaml:10: ops: want get, the request get`},
		{"orders without fetch", base + "ops: {get: {request: get}, o: {request: orders, orders: 3}}\n", `m.yaml:10: op o: the orders requests take orders (per user) and fetch (join, eager, lazy), and only they`},
		{"unknown fetch", base + "ops: {get: {request: get}, o: {request: orders, orders: 3, fetch: jion}}\n", `m.yaml:10: op o: unknown fetch "jion" (allowed: join, eager, lazy)`},
		{"a layer's unknown form", strings.Replace(base, "conn: [persistent]}", "conn: [persistent], fetch: {orders: [lasy]}}", 1), `m.yaml:6: unknown fetch "lasy" (allowed: join, eager, lazy)`},
		{"unknown op in preset", strings.Replace(base, "reps: 1", "reps: 1, ops: [get, lst]", 1), `m.yaml:9: unknown op "lst" (allowed: get)`},
		{"setting for prepare", strings.Replace(base, "    layers:\n", "    modes: {prepare: {set: s, default: d}}\n    layers:\n", 1), `modes of go: "prepare" is not a mode another is set against`},
		{"shipped at a mode the layer lacks", strings.Replace(base, "conn: [persistent]}", "conn: [persistent], shipped: {stmt: interpolate, conn: persistent}}", 1), `m.yaml:6: shipped of layer raw: stmt "interpolate" is not one of its stmt on mysql (prepare)`},
		{"shipped without conn", strings.Replace(base, "conn: [persistent]}", "conn: [persistent], shipped: {stmt: prepare}}", 1), `m.yaml:6: missing key "conn"`},
		{"setting without default", strings.Replace(base, "    layers:\n", "    modes: {interpolate: {set: s}}\n    layers:\n", 1), `missing key "default"`},
	} {
		_, err := Parse("m.yaml", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v\nwant it to contain %s", tc.name, err, tc.want)
		}
	}
}

// Each layer as shipped names modes it offers, and its language's tuned modes what it
// is measured against: database/sql prepares (go-sql-driver's default) in a pool as
// Go ships it; Laravel prepares natively, PDO emulates on MySQL and not on PostgreSQL.
func TestShippedAndTunedSettings(t *testing.T) {
	m := loadRepoMatrix(t)
	for _, tc := range []struct{ lang, layer, protocol, stmt, conn string }{
		{"go", "raw", "mysql", "prepare", "shipped"},
		{"go", "gorm", "postgres", "cache_statement", "shipped"},
		{"php", "eloquent", "mysql", "prepare", "per-request"},
		{"php", "raw", "mysql", "interpolate", "per-request"},
		{"php", "raw", "postgres", "prepare", "per-request"},
	} {
		sh := m.Langs[tc.lang].Layers[tc.layer].Shipped
		if sh == nil {
			t.Errorf("%s %s: no shipped", tc.lang, tc.layer)
			continue
		}
		if stmt, conn := sh.On(tc.protocol); stmt != tc.stmt || conn != tc.conn {
			t.Errorf("%s %s on %s ships %s/%s, want %s/%s", tc.lang, tc.layer, tc.protocol, stmt, conn, tc.stmt, tc.conn)
		}
	}
	// A mode's default as a run on one protocol says it.
	if got := m.Langs["php"].Modes["interpolate"].DefaultOn("postgres"); got != "false in pdo_pgsql" {
		t.Errorf("PHP's interpolate default on postgres: %q", got)
	}
	if stmt, conn := m.Langs["php"].Tuned.On("postgres"); stmt != "interpolate" || conn != "persistent" {
		t.Errorf("php tuned on postgres: %s/%s", stmt, conn)
	}
}

// Answer 2 speaks each language's own terms: the repository's matrix says what to set
// for interpolation in Go and PHP, and their defaults.
func TestModeSettingsInTheDriversTerms(t *testing.T) {
	m := loadRepoMatrix(t)
	for lang, want := range map[string]string{"go": "`interpolateParams=true`", "php": "`PDO::ATTR_EMULATE_PREPARES => true`"} {
		st := m.Langs[lang].Modes["interpolate"]
		if st == nil || !strings.Contains(st.Set, want) || st.Default == "" {
			t.Errorf("%s interpolate: %+v, want it set by %s with a default", lang, st, want)
		}
	}
}

// Names and patterns written before servers had a name keep meaning what they meant:
// the language's first server.
func TestNamesWithoutServerMeanTheFirstServer(t *testing.T) {
	m := loadRepoMatrix(t)
	v, err := m.Resolve("lang=php/layer=orm/stmt=interpolate/conn=persistent/pool=8")
	if err != nil {
		t.Fatal(err)
	}
	if want := m.Langs["php"].ServerNames()[0]; v.Server != want {
		t.Errorf("server %q, want the first one, %q", v.Server, want)
	}
	legacy := regexp.MustCompile("^lang=php/layer=orm/")
	if !m.Match(legacy, v) {
		t.Errorf("the pattern %s no longer selects %s", legacy, v)
	}
	other := v
	other.Server = "elsewhere"
	if m.Match(legacy, other) {
		t.Errorf("a pattern without server= selected %s, which is not on the first server", other)
	}
	if !m.Match(regexp.MustCompile("/server="+v.Server+"/"), v) {
		t.Errorf("a pattern naming the server does not select %s", v)
	}
}

// A variant of a run of two revisions carries rev= last: its key parses back, and every
// pattern written before revisions (presets, exclusions, rules, --variants) still
// selects it as it selects the variant without.
func TestRevIsTheLastKeyAndOldPatternsStillMatch(t *testing.T) {
	m := loadRepoMatrix(t)
	v := Variant{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "prepare", Conn: "persistent", Pool: 8, Rev: "1a2b3c4-dirty"}
	if want := "lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=8/rev=1a2b3c4-dirty"; v.Key() != want {
		t.Fatalf("Key() = %s, want %s", v.Key(), want)
	}
	for _, s := range []string{v.Name(), v.Key(), "lang=go/layer=raw/stmt=prepare/conn=persistent/pool=8/rev=1a2b3c4-dirty"} {
		got, err := ParseName(s)
		if err != nil || got.Rev != v.Rev || got.Layer != "raw" || got.Pool != 8 {
			t.Errorf("ParseName(%s) = %+v, %v", s, got, err)
		}
	}
	if err := m.Check(v); err != nil {
		t.Errorf("Check: %v", err)
	}
	if !maps.Equal(m.Expected(v), m.Expected(v.WithoutRev())) || len(m.Expected(v)) == 0 {
		t.Errorf("Expected(%s) = %v, want the rules of the variant without rev: %v", v, m.Expected(v), m.Expected(v.WithoutRev()))
	}
	for _, re := range []string{"^lang=go/layer=raw/", "pool=8$", "stmt=prepare/conn=persistent/pool=8$", "rev=1a2b3c4"} {
		if !m.Match(regexp.MustCompile(re), v) {
			t.Errorf("%s does not select %s", re, v)
		}
	}
	if m.Match(regexp.MustCompile("rev=ffff"), v) {
		t.Errorf("a pattern naming another rev selected %s", v)
	}
	excluded := Variant{Lang: "go", Server: "nethttp", Layer: "bun", Stmt: "prepare", Conn: "persistent", Pool: 8, Rev: "1a2b3c4"}
	if err := m.Check(excluded); err == nil || !strings.Contains(err.Error(), "excluded") {
		t.Errorf("Check(%s) = %v, want the exclusion", excluded, err)
	}
	for _, bad := range []string{"lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=8/rev=",
		"lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=8/rev=a b",
		"lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/rev=1a2b/pool=8"} {
		if _, err := ParseName(bad); err == nil {
			t.Errorf("ParseName(%s) accepted a malformed name", bad)
		}
	}
}

// op= comes after pool= and only for an op other than get: a name without op= is get,
// so every name and pattern written before ops (presets, exclusions, rules,
// --variants) selects what it selected, while op=get selects get beside the others.
func TestOpIsAKeyAfterPoolAndGetKeepsItsNames(t *testing.T) {
	m := loadRepoMatrix(t)
	get := Variant{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: 64}
	list := get
	list.Op = "list100"
	if want := "lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=64/op=list100"; list.Key() != want {
		t.Fatalf("Key() = %s, want %s", list.Key(), want)
	}
	if want := "lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=64/op=get"; get.OpKey() != want || get.OpName() != Get {
		t.Errorf("OpKey() = %s, OpName() = %s; want %s and get", get.OpKey(), get.OpName(), want)
	}
	for s, want := range map[string]Variant{
		list.Name(): list, list.Key(): list, get.OpKey(): get, get.Key(): get,
		"lang=go/layer=raw/stmt=interpolate/conn=persistent/pool=64/op=list100": {Lang: "go", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: 64, Op: "list100"},
		list.Key() + "/rev=1a2b": {Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: 64, Op: "list100", Rev: "1a2b"},
	} {
		if got, err := ParseName(s); err != nil || got != want {
			t.Errorf("ParseName(%s) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, bad := range []string{get.Key() + "/rev=1a2b/op=list100", get.Key() + "/op=", "lang=go/layer=raw/stmt=interpolate/op=list100/conn=persistent/pool=64"} {
		if _, err := ParseName(bad); err == nil {
			t.Errorf("ParseName(%s) accepted a malformed name", bad)
		}
	}
	for _, tc := range []struct{ name, want string }{
		{get.Key() + "/op=delete", `unknown op "delete"`},
		{"lang=go/layer=hello/stmt=none/conn=none/pool=1/op=list100", "serves get only"},
	} {
		if _, err := m.Resolve(tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve(%s) = %v, want an error containing %s", tc.name, err, tc.want)
		}
	}
	for re, want := range map[string][2]bool{ // pattern: selects get, selects list100
		"pool=64$": {true, false}, "^lang=go/layer=raw/stmt=interpolate/": {true, true},
		"op=get": {true, false}, "op=list": {false, true}, "^lang=go/layer=raw/.*/op=get$": {true, false},
		"/op=(get|list100)$": {true, true},
	} {
		for i, v := range []Variant{get, list} {
			if got := m.Match(regexp.MustCompile(re), v); got != want[i] {
				t.Errorf("Match(%s, %s) = %v, want %v", re, v, got, want[i])
			}
		}
	}
	withRev := list
	withRev.Rev = "1a2b"
	if !m.Match(regexp.MustCompile("op=list100$"), withRev) || !maps.Equal(m.Expected(withRev), m.Expected(list)) {
		t.Errorf("a pattern ending at op= does not select %s, or its rules differ", withRev)
	}
}

// The ops preset measures every op of its database variants but the statement working
// sets, which the statements preset measures, and the quick preset get alone, as
// before ops.
func TestPresetsExpandTheirOps(t *testing.T) {
	m := loadRepoMatrix(t)
	count := func(name string) map[string]int {
		p, err := m.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int{}
		for _, v := range m.Expand(p) {
			out[v.OpName()]++
		}
		return out
	}
	if got := count("quick"); len(got) != 1 || got[Get] == 0 {
		t.Errorf("quick measures ops %v, want get alone", got)
	}
	ops, texts, related := count("ops"), count("statements"), count("related")
	for _, op := range m.OpNames() {
		switch {
		case m.Ops[op].Texts > 0 && texts[op] == 0:
			t.Errorf("the statements preset has no variant of op %s: %v", op, texts)
		case m.Ops[op].Fetch != "" && related[op] == 0:
			t.Errorf("the related preset has no variant of op %s: %v", op, related)
		case m.Ops[op].Fetch != "":
		case m.Ops[op].Texts == 0 && ops[op] == 0:
			t.Errorf("the ops preset has no variant of op %s: %v", op, ops)
		}
	}
	if ops["update"] <= ops["insert"] {
		t.Errorf("the ops preset measures update at %d variants, insert at %d: want update at every stmt mode", ops["update"], ops["insert"])
	}
	if l := m.Ops["list100"]; l == nil || l.Request != "list" || l.Rows != 100 || m.Ops["list10"].Rows != 10 {
		t.Errorf("list ops %+v, %+v; want lists of 100 and 10 rows", l, m.Ops["list10"])
	}
}

// The commands per request of every op, as go/README.md and php/README.md measured them
// ("MySQL commands per request, by op"), come out of the rules.
func TestExpectedCommandsOfEveryOp(t *testing.T) {
	m := loadRepoMatrix(t)
	for _, tc := range []struct{ key, want string }{
		{"lang=go/layer=raw/stmt=prepare/conn=persistent/pool=4/op=list100", "P E C"},
		{"lang=go/layer=raw/stmt=prepared/conn=persistent/pool=4/op=insert", "E"},
		{"lang=go/layer=raw/stmt=prepare/conn=persistent/pool=4/op=update", "2Q 2P 2E 2C"},
		{"lang=go/layer=raw/stmt=prepared/conn=persistent/pool=4/op=update", "2Q 2E"},
		{"lang=go/layer=raw/stmt=interpolate/conn=per-request/pool=4/op=update", "Connect 4Q Quit"},
		{"lang=go/layer=orm/stmt=prepared/conn=persistent/pool=4/op=update", "2Q 2P 2E 2C"},
		{"lang=go/layer=orm/stmt=prepared/conn=persistent/pool=4/op=insert", "E"},
		{"lang=go/layer=gorm/stmt=prepare/conn=persistent/pool=4/op=insert", "2Q P E C"},
		{"lang=go/layer=gorm/stmt=prepared/conn=persistent/pool=4/op=insert", "2Q P E C"},
		{"lang=go/layer=gorm/stmt=interpolate/conn=persistent/pool=4/op=insert", "3Q"},
		{"lang=go/layer=gorm/stmt=prepared/conn=persistent/pool=4/op=update", "2Q 2P 2E 2C"},
		{"lang=go/layer=gorm/stmt=prepared/conn=persistent/pool=4/op=list10", "E"},
		{"lang=go/layer=ent/stmt=prepare/conn=persistent/pool=4/op=update", "2Q 3P 3E 3C"},
		{"lang=go/layer=ent/stmt=interpolate/conn=persistent/pool=4/op=update", "5Q"},
		{"lang=go/layer=bun/stmt=interpolate/conn=persistent/pool=4/op=update", "4Q"},
		{"lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=4/op=update", "2Q 2P 2E 2C Ping"},
		{"lang=php/server=fpm/layer=builder/stmt=prepare/conn=persistent/pool=4/op=list100", "Q 3P 3E 3C Ping"},
		{"lang=php/server=fpm/layer=builder/stmt=prepare/conn=persistent/pool=4/op=update", "3Q 4P 4E 4C Ping"},
		{"lang=php/server=fpm/layer=orm/stmt=interpolate/conn=persistent/pool=4/op=update", "7Q Ping"},
		{"lang=php/server=fpm/layer=doctrine/stmt=prepare/conn=persistent/pool=4/op=insert", "2Q P E C Ping"},
		{"lang=php/server=fpm/layer=doctrine/stmt=interpolate/conn=per-request/pool=4/op=insert", "Connect 3Q Quit"},
		{"lang=php/server=worker/layer=orm/stmt=interpolate/conn=persistent/pool=4/op=update", "4Q"},
		{"lang=php/server=worker/layer=builder/stmt=prepare/conn=per-request/pool=4/op=insert", "Connect Q 3P 3E 3C Quit"},
		{"lang=php/server=worker/layer=doctrine/stmt=interpolate/conn=persistent/pool=4/op=insert", "3Q"},
	} {
		v, err := m.Resolve(tc.key)
		if err != nil {
			t.Fatal(err)
		}
		if got := short(m.Expected(v)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.key, got, tc.want)
		}
	}
}

// short writes commands as the READMEs' tables do: "2Q 2P 2E 2C Ping".
func short(cmds map[string]int) string {
	var out []string
	for _, c := range []struct{ name, mark string }{{"Connect", "Connect"}, {"Query", "Q"}, {"Prepare", "P"}, {"Execute", "E"},
		{"Close stmt", "C"}, {"Ping", "Ping"}, {"Quit", "Quit"}} {
		switch n := cmds[c.name]; {
		case n == 1:
			out = append(out, c.mark)
		case n > 1:
			out = append(out, strconv.Itoa(n)+c.mark)
		}
	}
	return strings.Join(out, " ")
}

// A variant on a database other than the first carries db= after op= and before rev=:
// its key parses back, a name with db=mariadb means the variant without db=, and a
// pattern without db= selects both servers' variants while one naming a db selects
// that db's alone.
func TestDBKeyComesAfterOpAndOldNamesKeepTheirMeaning(t *testing.T) {
	m := loadRepoMatrix(t)
	v := Variant{Lang: "php", Server: "fpm", Layer: "raw", Stmt: "prepare", Conn: "persistent", Pool: 4, Op: "update", Database: "mysql", Rev: "abc1234"}
	if want := "lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=4/op=update/db=mysql/rev=abc1234"; v.Key() != want {
		t.Fatalf("Key() = %s, want %s", v.Key(), want)
	}
	got, err := m.Resolve(v.Name())
	if err != nil || got != v {
		t.Errorf("Resolve(%s) = %+v, %v; want %+v", v.Name(), got, err, v)
	}
	plain, err := m.Resolve("lang=go/layer=raw/stmt=prepare/conn=persistent/pool=8/db=mariadb")
	if err != nil || plain.Database != "" || plain.Key() != "lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=8" {
		t.Errorf("db=mariadb resolved to %q, %v; want the key without db=", plain.Key(), err)
	}
	if _, err := m.Resolve("lang=go/layer=raw/stmt=prepare/conn=persistent/pool=8/db=oracle"); err == nil || !strings.Contains(err.Error(), "unknown db \"oracle\" (want one of mariadb, mysql") {
		t.Errorf("an unknown db: %v", err)
	}
	onMySQL := m.OnDB(plain, "mysql")
	for re, want := range map[string][2]bool{ // [selects plain, selects onMySQL]
		"^lang=go/layer=raw/stmt=prepare/": {true, true},
		"pool=8$":                          {true, true},
		"db=mysql$":                        {false, true},
		"db=mariadb$":                      {true, false},
		"/db=":                             {true, true},
	} {
		if a, b := m.Match(regexp.MustCompile(re), plain), m.Match(regexp.MustCompile(re), onMySQL); a != want[0] || b != want[1] {
			t.Errorf("%s selects (default, mysql) = (%v, %v), want %v", re, a, b, want)
		}
	}
	if m.OnDB(onMySQL, "mariadb") != plain {
		t.Errorf("OnDB(mariadb) kept db=: %s", m.OnDB(onMySQL, "mariadb"))
	}
}

// MySQL 8's re-prepare of PDO's integer parameters is in the general log only: the
// matrix says so for each PHP statement that binds an integer at stmt=prepare on
// mysql, with its cause, and for nothing on MariaDB or in Go.
func TestMySQLReprepareIsLogOnlyAndExplained(t *testing.T) {
	m := loadRepoMatrix(t)
	get, err := m.Resolve("lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=4/db=mysql")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		v    Variant
		want int
	}{
		{get, 1},
		{func() Variant { v := get; v.Op = "update"; return v }(), 2},
		{func() Variant { v := get; v.Op = "insert"; return v }(), 0},
		{func() Variant { v := get; v.Layer, v.Op = "doctrine", "insert"; return v }(), 1},
		{func() Variant { v := get; v.Op = "list100"; return v }(), 1},
		{get.WithoutDB(), 0},
		{func() Variant { v := get; v.Stmt = "interpolate"; return v }(), 0},
		{Variant{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "prepare", Conn: "persistent", Pool: 8, Database: "mysql"}, 0},
	}
	for _, c := range cases {
		logOnly, why := m.LogOnly(c.v)
		if logOnly["Prepare"] != c.want || (c.want > 0) != (len(why) > 0) {
			t.Errorf("LogOnly(%s) = %v, %q; want Prepare %d with its cause", c.v, logOnly, why, c.want)
		}
		if c.want > 0 && !strings.Contains(why[0], "PDO::PARAM_INT") {
			t.Errorf("why for %s = %q, want the binding named", c.v, why[0])
		}
		if !maps.Equal(m.Expected(c.v), m.Expected(c.v.WithoutDB())) {
			t.Errorf("Expected(%s) = %v differs from the MariaDB variant's %v: the wire is the same", c.v, m.Expected(c.v), m.Expected(c.v.WithoutDB()))
		}
	}
}

// A layer named after its library answers to the name it had (was): a key typed with
// it resolves to the layer, a pattern written with it selects it, and the targets are
// told the old name, which every revision's target knows.
func TestLayersAnswerToTheirFormerNames(t *testing.T) {
	m := loadRepoMatrix(t)
	for old, want := range map[string]string{
		"lang=go/layer=orm/stmt=interpolate/conn=persistent/pool=64":               "lang=go/server=nethttp/layer=beego/stmt=interpolate/conn=persistent/pool=64",
		"lang=php/layer=builder/stmt=prepare/conn=persistent/pool=8":               "lang=php/server=fpm/layer=illuminate/stmt=prepare/conn=persistent/pool=8",
		"lang=php/server=worker/layer=orm/stmt=interpolate/conn=persistent/pool=8": "lang=php/server=worker/layer=eloquent/stmt=interpolate/conn=persistent/pool=8",
		"lang=go/layer=gorm/stmt=interpolate/conn=persistent/pool=64":              "lang=go/server=nethttp/layer=gorm/stmt=interpolate/conn=persistent/pool=64",
	} {
		v, err := m.Resolve(old)
		if err != nil || v.Key() != want {
			t.Errorf("Resolve(%s) = %s, %v; want %s", old, v.Key(), err, want)
		}
	}
	beego, _ := m.Resolve("lang=go/layer=beego/stmt=interpolate/conn=persistent/pool=64")
	gorm, _ := m.Resolve("lang=go/layer=gorm/stmt=interpolate/conn=persistent/pool=64")
	re := regexp.MustCompile("layer=orm/")
	if !m.Match(re, beego) || m.Match(re, gorm) {
		t.Errorf("layer=orm/ selects beego %v (want true), gorm %v (want false)", m.Match(re, beego), m.Match(re, gorm))
	}
	if spec, err := m.Spec(beego); err != nil || spec.Layer.TargetName() != "orm" {
		t.Errorf("beego's target name %q, %v; want orm", spec.Layer.TargetName(), err)
	}
}

// A layer runs the orders ops in the forms its fetch lists, and a variant in another
// form is refused with the forms it has.
func TestALayerRunsTheFormsItOffers(t *testing.T) {
	doc := `langs:
  go:
    baseline: raw
    servers: {s: {launcher: l, pool: p}}
    layers:
      raw: {kind: raw, library: r, version_of: m, stmt: [prepare], conn: [persistent], fetch: {orders: [join, eager]}}
      orm: {kind: orm, library: o, version_of: m, stmt: [prepare], conn: [persistent], fetch: {orders: [eager], api: {eager: "Preload"}}}
ops:
  get: {request: get}
  orders_join: {request: orders, orders: 10, fetch: join}
  orders_eager: {request: orders, orders: 10, fetch: eager}
presets:
  p: {include: [".*"], ops: [orders_join, orders_eager], pools: {go: [4]}, connections: 1, warmup: 1s, duration: 1s, reps: 1, budget: 1m}
`
	m, err := Parse("m.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := m.Preset("p")
	var got []string
	for _, v := range m.Expand(p) {
		got = append(got, v.Layer+" "+v.Op)
	}
	if want := []string{"raw orders_join", "raw orders_eager", "orm orders_eager"}; !slices.Equal(got, want) {
		t.Errorf("variants %q, want %q", got, want)
	}
	v := Variant{Lang: "go", Server: "s", Layer: "orm", Stmt: "prepare", Conn: "persistent", Pool: 4, Op: "orders_join"}
	if err := m.Check(v); err == nil || !strings.Contains(err.Error(), "reads related rows by eager, not by join") {
		t.Errorf("orm at join: %v", err)
	}
	if api := m.Langs["go"].Layers["orm"].FetchAPI["eager"]; api != "Preload" {
		t.Errorf("orm's eager api %q", api)
	}
}

// A family is the key without its pool wherever pool stands (before op=, db= and
// rev=), and reads back to the variant without its pool.
func TestFamilyLeavesOutThePoolAndReadsBack(t *testing.T) {
	v := Variant{Lang: "go", Server: "nethttp", Layer: "pgx", Stmt: "exec", Conn: "persistent", Pool: 16, Op: "list10", Database: "postgres"}
	want := "lang=go/server=nethttp/layer=pgx/stmt=exec/conn=persistent/op=list10/db=postgres"
	if got := v.Family(); got != want {
		t.Fatalf("Family() = %s, want %s", got, want)
	}
	back, err := ParseFamily(want)
	v.Pool = 0
	if err != nil || back != v {
		t.Errorf("ParseFamily(%s) = %+v, %v; want %+v", want, back, err, v)
	}
	if got := (Variant{Lang: "php", Server: "fpm", Layer: "raw", Stmt: "prepare", Conn: "persistent", Pool: 8}).Family(); got != "lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent" {
		t.Errorf("Family() = %s", got)
	}
}
