package results

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"dbbench/dsn/protocol"
	"dbbench/runners/define/matrix"
	"dbbench/runners/units"
)

func TestWriteJSONReplacesAtomicallyAndReadsBack(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "results.json")
	run := &Run{Schema: Schema, Started: time.Date(2026, 11, 22, 3, 0, 0, 0, time.UTC), Status: "running",
		Environment: map[string]string{"go": "go1.26.8"},
		Variants: []*Variant{{Name: "BenchmarkSingleRow/lang=go/layer=raw/stmt=prepare/conn=persistent/pool=8",
			DatabaseTitle: "MariaDB", Valid: true, Reps: []*Repetition{{Rep: 1, Requests: 100, QPS: 50}}}}}
	for i := 0; i < 3; i++ {
		run.Variants[0].Reps[0].Requests += 1
		if err := WriteJSON(path, run); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, run) {
		t.Fatalf("read back %+v, wrote %+v", got, run)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left beside results.json: %v", entries)
	}
}

func TestReadRefusesOtherSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	os.WriteFile(path, []byte(`{"schema":"dbbench/results/v0"}`), 0o644)
	if _, err := Read(path); err == nil {
		t.Fatal("Read accepted a file of another schema")
	}
}

func TestCommandsCountsRoundTrips(t *testing.T) {
	c, rt := (&Roundtrips{Wire: map[string]float64{"Connect": 1, "Prepare": 1, "Execute": 1, "Close stmt": 1, "Quit": 1}}).Commands()
	if c != 5 || rt != 3 {
		t.Fatalf("Commands = %v, %v; want 5 commands, 3 round trips", c, rt)
	}
}

// A sum of fractional counts is the same at every reading: summed in the names' order,
// not the map's, so that bench.txt and judgement.json do not move in their last bits.
func TestCommandsSumsInOneOrder(t *testing.T) {
	wire := map[string]float64{}
	for i := range 40 {
		wire[fmt.Sprintf("Message%02d", i)] = 0.1 * float64(i%7+1) / 3
	}
	first, _ := (&Roundtrips{Protocol: protocol.Postgres, Wire: wire}).Commands()
	for range 200 {
		if c, _ := (&Roundtrips{Protocol: protocol.Postgres, Wire: wire}).Commands(); c != first {
			t.Fatalf("Commands = %v, then %v", first, c)
		}
	}
}

// A run saved before servers had a name (schema v1: testdata/v1-quick.json, trimmed from
// a quick sample of that time) reads as the current schema: each variant on its
// language's only server then, with the facts the matrix had, so it compares with the
// same variant of a later run.
func TestReadUpgradesSchemaV1(t *testing.T) {
	r, err := Read("testdata/v1-quick.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Schema != Schema {
		t.Fatalf("schema %q, want %q", r.Schema, Schema)
	}
	want := map[string]string{"go": "nethttp", "php": "fpm"}
	for _, v := range r.Variants {
		if v.Server != want[v.Lang] || !strings.Contains(v.Name, "/server="+v.Server+"/layer="+v.Layer+"/") {
			t.Errorf("%s: server %q, want %q in the name", v.Name, v.Server, want[v.Lang])
		}
		if v.DB != (v.Layer != "hello") || (v.DB && (v.Kind == "" || v.Library == "")) {
			t.Errorf("%s: db %v kind %q library %q", v.Name, v.DB, v.Kind, v.Library)
		}
	}
	for lang, server := range want {
		if l := r.Langs[lang]; l == nil || l.Baseline != "raw" || l.Servers[server] == nil {
			t.Errorf("langs[%s] = %+v, want baseline raw and server %s", lang, l, server)
		}
	}
}

func TestReadRefusesUnknownSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, []byte(`{"schema":"dbbench/results/v0"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(path); err == nil || !strings.Contains(err.Error(), `schema "dbbench/results/v0"`) {
		t.Errorf("err = %v, want one naming the schema", err)
	}
}

// Counts that a role's /proc reading cannot see stay readable in old files but are no
// figure: not in Values (so not in bench.txt, the report or compare), and dropped from
// a new repetition.
func TestValuesLeaveOutBlindCounts(t *testing.T) {
	counts := func() map[string]float64 {
		return map[string]float64{units.Syscalls("app"): 10, units.Syscalls("db"): 0, units.Syscalls("gen"): 3,
			units.ReqPeak: 2 << 20, units.ReqPeakAlloc: 441847, units.Switches("db"): 2}
	}
	for _, c := range []struct {
		lang string
		want []string
	}{
		{"go", []string{units.ReqPeakAlloc, units.Syscalls("app"), units.Syscalls("gen"), units.Switches("db")}},
		{"php", []string{units.ReqPeakAlloc, units.Syscalls("gen"), units.Switches("db")}},
	} {
		v := &Variant{Variant: matrix.Variant{Lang: c.lang}}
		rep := &Repetition{Counts: counts()}
		var got []string
		for _, u := range v.Values(rep) {
			if _, ok := rep.Counts[u.Unit]; ok {
				got = append(got, u.Unit)
			}
		}
		slices.Sort(got)
		slices.Sort(c.want)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: counts in Values = %v, want %v", c.lang, got, c.want)
		}
		v.DropUncounted(rep)
		if len(rep.Counts) != len(c.want) {
			t.Errorf("%s: DropUncounted left %v, want %v", c.lang, rep.Counts, c.want)
		}
	}
}

// An update's lost visits are its successes the table lacks.
func TestLostUpdates(t *testing.T) {
	v := &Variant{Key: "a", Reps: []*Repetition{{Rep: 1}, {Rep: 2}}}
	if _, _, checked := v.LostUpdates(); checked {
		t.Error("a variant without visits counted says it checked them")
	}
	v.Reps[0].Visits = &Visits{Successful: 100, Gained: 100}
	v.Reps[1].Visits = &Visits{Successful: 50, Gained: 47}
	if lost, ok, checked := v.LostUpdates(); lost != 3 || ok != 150 || !checked {
		t.Errorf("LostUpdates = %d of %d (checked %v), want 3 of 150", lost, ok, checked)
	}
}

// A run saved before layers were named by their library (schema v2) reads with Go's
// orm and builder as beego and squirrel, PHP's as eloquent and illuminate, wherever a
// key is written, so that a baseline from before compares with a run of today; other
// layers and the keys of other languages stay as they were.
func TestReadUpgradesSchemaV2(t *testing.T) {
	old := &Run{Schema: schemaV2, Status: "complete", Variants: []*Variant{
		{Name: "BenchmarkSingleRow/lang=go/server=nethttp/layer=orm/stmt=prepare/conn=persistent/pool=64", Key: "lang=go/server=nethttp/layer=orm/stmt=prepare/conn=persistent/pool=64", Variant: matrix.Variant{Lang: "go", Layer: "orm"}},
		{Key: "lang=php/server=fpm/layer=builder/stmt=prepare/conn=persistent/pool=8", Variant: matrix.Variant{Lang: "php", Layer: "builder"}},
		{Key: "lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=8", Variant: matrix.Variant{Lang: "php", Layer: "raw"}},
	}, Comparisons: []*Comparison{{Question: "layer", Base: "lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=8", Other: "lang=php/server=fpm/layer=builder/stmt=prepare/conn=persistent/pool=8"}},
		PoolCheck: &PoolCheck{Families: []*CheckedFamily{{Family: "lang=go/server=nethttp/layer=orm/stmt=interpolate/conn=persistent"}}}}
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{r.Variants[0].Name, r.Variants[0].Key, r.Variants[0].Layer, r.Variants[1].Key, r.Variants[1].Layer, r.Variants[2].Key,
		r.Comparisons[0].Base, r.Comparisons[0].Other, r.PoolCheck.Families[0].Family}
	want := []string{"BenchmarkSingleRow/lang=go/server=nethttp/layer=beego/stmt=prepare/conn=persistent/pool=64",
		"lang=go/server=nethttp/layer=beego/stmt=prepare/conn=persistent/pool=64", "beego",
		"lang=php/server=fpm/layer=illuminate/stmt=prepare/conn=persistent/pool=8", "illuminate",
		"lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=8",
		"lang=php/server=fpm/layer=raw/stmt=prepare/conn=persistent/pool=8", "lang=php/server=fpm/layer=illuminate/stmt=prepare/conn=persistent/pool=8",
		"lang=go/server=nethttp/layer=beego/stmt=interpolate/conn=persistent"}
	if !slices.Equal(got, want) || r.Schema != Schema {
		t.Errorf("upgraded:\n%q\nwant\n%q (schema %s)", got, want, r.Schema)
	}
}

func TestDurationKeepsItsText(t *testing.T) {
	var n PoolNeed
	if err := json.Unmarshal([]byte(`{"p99":"50ms","rtt":"500µs"}`), &n); err != nil {
		t.Fatal(err)
	}
	if n.P99.D() != 50*time.Millisecond || n.RTT.D() != 500*time.Microsecond {
		t.Fatalf("read p99 %v, rtt %v", n.P99, n.RTT)
	}
	b, err := json.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"p99":"50ms","rtt":"500µs"`) {
		t.Errorf("wrote %s", b)
	}
	if err := json.Unmarshal([]byte(`{"p99":"fast"}`), &n); err == nil {
		t.Error(`p99 "fast" read without an error`)
	}
}

// TestDBProbeIsTheAppsDirectLink: the ping named beside a link's round trip is the
// one that timed the app's direct link, whichever server it was.
func TestDBProbeIsTheAppsDirectLink(t *testing.T) {
	var none *Topology
	if got := none.DBProbe(); got != "ping" {
		t.Errorf("no topology: %q, want ping", got)
	}
	top := &Topology{Links: []*RoleLink{
		{From: RoleLoad, To: RoleApp, Via: "direct", Probe: "TCP echo"},
		{From: RoleApp, To: RoleDB, Via: "counting proxy", Probe: "COM_PING"},
		{From: RoleApp, To: RoleDB, Via: "direct", Probe: "empty query"},
	}}
	if got := top.DBProbe(); got != "empty query" {
		t.Errorf("DBProbe = %q, want the app's direct link's, empty query", got)
	}
}
