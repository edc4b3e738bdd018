package matrix

import (
	"strings"
	"testing"
)

func loadRepoMatrix(t *testing.T) *Matrix {
	t.Helper()
	m, err := Load("../matrix.yaml")
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
	// quick is every lang × layer × stmt × conn once: one pool per lang.
	quick, _ := m.Preset("quick")
	combos := map[string]bool{}
	for _, v := range m.Expand(quick) {
		v.Pool = 0
		combos[v.Key()] = true
	}
	if got := len(m.Expand(quick)); got != len(combos) {
		t.Errorf("quick has %d variants but %d distinct lang×layer×stmt×conn", got, len(combos))
	}
	if _, err := m.Preset("quik"); err == nil || !strings.Contains(err.Error(), "smoke") {
		t.Errorf("unknown preset error = %v, want one listing the presets", err)
	}
}

func TestCheckRefusesNonsense(t *testing.T) {
	m := loadRepoMatrix(t)
	for _, tc := range []struct{ name, want string }{
		{"lang=go/layer=hello/stmt=prepare/conn=none/pool=1", `no stmt "prepare"`},
		{"lang=go/layer=raw/stmt=none/conn=persistent/pool=1", `no stmt "none"`},
		{"lang=php/layer=raw/stmt=prepared/conn=persistent/pool=1", `no stmt "prepared"`},
		{"lang=go/layer=hibernate/stmt=prepare/conn=persistent/pool=1", `no layer "hibernate"`},
		{"lang=rust/layer=raw/stmt=prepare/conn=persistent/pool=1", `unknown lang "rust"`},
		{"lang=go/layer=raw/stmt=prepare/conn=pooled/pool=1", `no conn "pooled"`},
	} {
		v, err := ParseName(tc.name)
		if err != nil {
			t.Fatalf("ParseName(%s): %v", tc.name, err)
		}
		if err := m.Check(v); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check(%s) = %v, want an error containing %s", tc.name, err, tc.want)
		}
	}
}

func TestParseNameRoundTrip(t *testing.T) {
	v := Variant{Lang: "go", Layer: "orm", Stmt: "interpolate", Conn: "persistent", Pool: 64}
	want := "BenchmarkSingleRow/lang=go/layer=orm/stmt=interpolate/conn=persistent/pool=64"
	if v.Name() != want {
		t.Fatalf("Name() = %s, want %s", v.Name(), want)
	}
	for _, s := range []string{want, v.Key()} {
		got, err := ParseName(s)
		if err != nil || got != v {
			t.Errorf("ParseName(%s) = %+v, %v", s, got, err)
		}
	}
	for _, bad := range []string{"lang=go", "lang=go/layer=raw/stmt=x/conn=y/pool=0",
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
    layers:
      raw: {stmt: [prepare, interpolate], conn: [persistent, per-request]}
roundtrips:
  - {match: "stmt=prepare/", commands: {Prepare: 1, Execute: 1, Close stmt: 1}}
  - {match: "stmt=interpolate/", commands: {Query: 1}}
  - {match: "conn=per-request/", commands: {Connect: 1, Quit: 1}}
presets:
  p: {include: [".*"], pools: {go: [4]}, connections: 1, warmup: 1s, duration: 1s, reps: 1}
`))
	if err != nil {
		t.Fatal(err)
	}
	v := Variant{Lang: "go", Layer: "raw", Stmt: "prepare", Conn: "per-request", Pool: 4}
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
    layers:
      raw: {stmt: [prepare], conn: [persistent]}
presets:
  p: {include: [".*"], pools: {go: [4]}, connections: 1, warmup: 1s, duration: 1s, reps: 1}
`
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown top key", base + "exlude: []\n", `m.yaml:7: unknown key "exlude" in the matrix (allowed: langs, exclude, roundtrips, presets)`},
		{"unknown stmt", strings.Replace(base, "[prepare]", "[prepard]", 1), `m.yaml:4: unknown stmt "prepard" (allowed: prepare, prepared, interpolate, none)`},
		{"unknown conn", strings.Replace(base, "[persistent]", "[persistant]", 1), `m.yaml:4: unknown conn "persistant" (allowed: persistent, per-request, none)`},
		{"unknown layer key", strings.Replace(base, "conn:", "con:", 1), `m.yaml:4: unknown key "con" in layer raw (allowed: stmt, conn)`},
		{"unknown preset key", strings.Replace(base, "reps: 1", "reps: 1, rep: 2", 1), `m.yaml:6: unknown key "rep" in preset p (allowed: about, include`},
		{"pool for unknown lang", strings.Replace(base, "{go: [4]}", "{goo: [4]}", 1), `m.yaml:6: unknown key "goo" in pools (allowed: go)`},
		{"bad duration", strings.Replace(base, "warmup: 1s", "warmup: 1 sec", 1), `m.yaml:6: warmup: "1 sec" is not a positive duration`},
		{"bad regexp", strings.Replace(base, `".*"`, `"(("`, 1), `m.yaml:6: include: error parsing regexp`},
		{"unknown command", base + "roundtrips:\n  - {match: x, commands: {Prepair: 1}}\n", `m.yaml:8: unknown key "Prepair" in commands (allowed: Connect, Quit`},
		{"selects nothing", strings.Replace(base, `".*"`, `"^lang=php"`, 1), `m.yaml:6: preset p selects no variant`},
	} {
		_, err := Parse("m.yaml", []byte(tc.doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error = %v\nwant it to contain %s", tc.name, err, tc.want)
		}
	}
}
