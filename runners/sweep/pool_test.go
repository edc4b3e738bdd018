package sweep

import (
	"dbbench/dsn/protocol"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
)

func loadMatrix(t *testing.T) *matrix.Matrix {
	t.Helper()
	m, err := matrix.Load(filepath.Join("..", "matrix.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func keys(vs []matrix.Variant) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Key())
	}
	return out
}

func TestExpandPoolsListsEveryPoolOfEachFamily(t *testing.T) {
	base := []matrix.Variant{
		{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: 99},
		{Lang: "php", Server: "fpm", Layer: "orm", Stmt: "interpolate", Conn: "persistent"},
		{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: 3}, // same family: dropped
	}
	pools := map[string][]int{"go": {1, 4, 2}, "php": {8, 1, 8}}
	got, err := ExpandPools(base, pools)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=1",
		"lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=2",
		"lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=4",
		"lang=php/server=fpm/layer=orm/stmt=interpolate/conn=persistent/pool=1",
		"lang=php/server=fpm/layer=orm/stmt=interpolate/conn=persistent/pool=8",
	}
	if !slices.Equal(keys(got), want) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(keys(got), "\n"), strings.Join(want, "\n"))
	}
	if _, err := ExpandPools(base[:1], map[string][]int{"php": {1}}); err == nil || !strings.Contains(err.Error(), "lang go") {
		t.Fatalf("err = %v, want one naming lang go", err)
	}
}

// On every database of the matrix, the default pool sweep is in the matrix: go's 6
// pools and php's 5, two families each (make pool-sweep's time is computed from it).
func TestDefaultPoolSweepExpandsFromTheMatrix(t *testing.T) {
	m := loadMatrix(t)
	for _, db := range m.DBNames() {
		vs, err := ParseVariants(m, DefaultPoolVariants[protocol.Protocol(m.ProtocolOf(db))], 1, db)
		if err != nil {
			t.Fatalf("--db %s: %v", db, err)
		}
		pools := map[string][]int{}
		for _, l := range m.LangNames() {
			pools[l] = m.Langs[l].PoolSweep
		}
		got, err := ExpandPools(vs, pools)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range got {
			if err := m.Check(v); err != nil {
				t.Errorf("--db %s: expanded variant is not in the matrix: %v", db, err)
			}
			if m.DBName(v) != db {
				t.Errorf("--db %s: %s is on %s", db, v.Key(), m.DBName(v))
			}
		}
		if len(got) != 22 {
			t.Fatalf("--db %s: default pool sweep has %d points, want 22", db, len(got))
		}
	}
}

func TestParseVariants(t *testing.T) {
	m := loadMatrix(t)
	vs, err := ParseVariants(m, " lang=go/layer=raw/stmt=prepare/conn=persistent , lang=php/layer=raw/stmt=prepare/conn=persistent/pool=8", 64, "mariadb")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=64", "lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=8"}; !slices.Equal(keys(vs), want) {
		t.Fatalf("got %v, want %v", keys(vs), want)
	}
	for in, want := range map[string]string{
		"lang=php/layer=raw/stmt=prepared/conn=persistent": "no stmt \"prepared\"",
		"lang=go/layer=raw/stmt=prepared/conn=per-request": "excluded",
		"lang=go/layer=raw": "want lang=",
		" , ":               "no variant",
		"lang=go/layer=raw/stmt=prepare/conn=persistent/pool=0":   "positive",
		"lang=go/layer=raw/stmt=prepare/conn=persistent/db=mysql": "but the sweep measures --db mariadb",
	} {
		if _, err := ParseVariants(m, in, 1, "mariadb"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseVariants(%q) err = %v, want one containing %q", in, err, want)
		}
	}
	for _, db := range m.DBNames() {
		if _, err := ParseVariants(m, DefaultRTTVariants[protocol.Protocol(m.ProtocolOf(db))], 64, db); err != nil {
			t.Fatalf("default rtt variants on --db %s: %v", db, err)
		}
	}
	if _, err := ParseVariants(m, "lang=go/layer=raw/stmt=prepare/conn=persistent", 1, "postgres"); err == nil {
		t.Error("go-sql-driver's raw layer on --db postgres: want an error")
	}
}

func TestParsePoolsAndInts(t *testing.T) {
	m := loadMatrix(t)
	got, err := ParsePools(m, "go=1,4,16; php=2")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got["go"], []int{1, 4, 16}) || !slices.Equal(got["php"], []int{2}) || len(got) != 2 {
		t.Fatalf("got %v", got)
	}
	if got, err := ParsePools(m, ""); got != nil || err != nil {
		t.Fatalf("empty: %v, %v; want nil, nil (the matrix's lists)", got, err)
	}
	for in, want := range map[string]string{"rust=1": "unknown lang", "go": "want lang=", "go=1,x": "\"x\" is not a positive", "go=0": "\"0\"", "go=4,4": "twice"} {
		if _, err := ParsePools(m, in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParsePools(%q) err = %v, want one containing %q", in, err, want)
		}
	}
}

func TestParseDelays(t *testing.T) {
	got, err := ParseDelays("0, 0.2, 1, 5ms, 300us")
	if err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{0, 200 * time.Microsecond, time.Millisecond, 5 * time.Millisecond, 300 * time.Microsecond}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for in, want := range map[string]string{"-1": "negative", "fast": "neither", "1ns": "finer", "0,1,1ms": "twice"} {
		if _, err := ParseDelays(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseDelays(%q) err = %v, want one containing %q", in, err, want)
		}
	}
}

func TestRTTDirNamesTheDelay(t *testing.T) {
	if got := RTTDir("/x", 200*time.Microsecond, Open); got != "/x/d0.2ms/open" {
		t.Fatalf("got %s", got)
	}
}
