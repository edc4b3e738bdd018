package run

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/findings"
	"dbbench/runners/judge/questions"
	"dbbench/runners/measure/dbtest"
	"dbbench/runners/measure/profile"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/revision"
	"dbbench/runners/measure/roundtrip"
	"dbbench/runners/results"
	"dbbench/runners/results/benchfile"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// smokeSetup is what an end-to-end run needs: the repository, a directory holding a
// fresh gotarget, the repository's matrix and its smoke preset.
func smokeSetup(t *testing.T) (root, binDir string, m *matrix.Matrix, p *matrix.Preset) {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	binDir = t.TempDir()
	if out, err := revision.GoBuild(context.Background(), root, filepath.Join(binDir, "gotarget")).CombinedOutput(); err != nil {
		t.Fatalf("build gotarget: %v\n%s", err, out)
	}
	if m, err = matrix.Load(filepath.Join(root, "runners", "matrix.yaml")); err != nil {
		t.Fatal(err)
	}
	if p, err = m.Preset("smoke"); err != nil {
		t.Fatal(err)
	}
	return root, binDir, m, p
}

// The smoke preset end to end, as `make test` runs it: every variant present and valid,
// round trips equal to the matrix's expectations, whole output files, and no process
// left behind.
func TestSmokePresetEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run skipped in -short mode")
	}
	root, binDir, m, p := smokeSetup(t)
	out := t.TempDir()
	var log strings.Builder
	res, err := Run(context.Background(), Options{
		Selection: Selection{Root: root, BinDir: binDir, Matrix: m, Preset: p,
			// PerfSchema: every variant's commands counted by performance_schema too.
			DB: provider.Options{Rows: 10000, PerfSchema: true}},
		Shape:  Shape{KeepAlive: true, Seed: 7},
		Output: Output{Out: out, Log: &log},
	})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != "complete" {
		t.Fatalf("status %q", res.Status)
	}
	want := m.Expand(p)
	if len(res.Variants) != len(want) {
		t.Fatalf("%d variants in results, preset has %d", len(res.Variants), len(want))
	}
	for i, v := range res.Variants {
		if v.Name != want[i].Name() {
			t.Errorf("variant %d is %s, want %s", i, v.Name, want[i].Name())
		}
		if !v.Valid {
			t.Errorf("%s invalid: %s", v.Key, v.InvalidReason)
			continue
		}
		if len(v.Reps) < min(p.Reps, stats.MinPairs) {
			t.Errorf("%s has %d slices, want at least %d", v.Key, len(v.Reps), min(p.Reps, stats.MinPairs))
		}
		for _, r := range v.Reps {
			if r.OK == 0 || r.QPS <= 0 || r.P50 <= 0 || r.P99 < r.P50 || r.AppCPU <= 0 || r.DBCPU < 0 || r.GenCPU <= 0 {
				t.Errorf("%s rep %d has implausible figures: %+v", v.Key, r.Rep, *r)
			}
			// Counts that do not depend on speed: every role's context switches, the
			// generator's and a Go target's syscalls, and Go's heap allocations.
			want := []string{units.Switches("app"), units.Switches("db"), units.Syscalls("gen")}
			if v.Lang == "go" {
				want = append(want, units.Syscalls("app"), units.Allocs, units.AllocBytes, units.GCCycles)
			}
			for _, u := range []string{units.Syscalls("db"), units.ReqPeak} {
				if _, ok := r.Counts[u]; ok {
					t.Errorf("%s rep %d has %s, which measures nothing", v.Key, r.Rep, u)
				}
			}
			for _, u := range want {
				if x, ok := r.Counts[u]; !ok || x < 0 || (u == units.Allocs && x < 1) {
					t.Errorf("%s rep %d: %s = %v (present %v)", v.Key, r.Rep, u, x, ok)
				}
			}
		}
		if !v.DB {
			continue
		}
		if v.Roundtrips == nil || !v.Roundtrips.Match {
			t.Errorf("%s round trips differ from the matrix: %+v", v.Key, v.Roundtrips)
		}
		if rt := v.Roundtrips; rt != nil && (rt.PerfSchema == nil || rt.ServerTime <= 0) {
			t.Errorf("%s: performance_schema did not count (%s)", v.Key, rt.PerfSchemaOff)
		}
		// A request's hold, timed in the target, covers its commands' wait at the proxy and
		// more (the hop to the proxy, the app's work between): a Go connection's and a
		// php-fpm child's, the child's within the request's latency (which adds nginx and
		// the client). Resident workers time none.
		if rt := v.Roundtrips; rt == nil {
			continue
		} else if z := rt.ZeroLoad; z == nil || (v.Server != "worker") != (z.Held > 0) || (z.Held > 0 && z.Held <= z.DBWait) ||
			(v.Server == "fpm" && z.Held >= z.Latency) {
			t.Errorf("%s: zero-load hold %+v; want a hold longer than its wait at the proxy (and for php-fpm shorter than the latency), none for workers", v.Key, z)
		}
		// A connection per request authenticates as MariaDB's users do, in one round trip.
		if rt := v.Roundtrips; rt != nil && v.Conn == "per-request" && (rt.Auth["mysql_native_password"] != 1 || rt.HandshakeTrips != 1) {
			t.Errorf("%s: new connections %v in %.2f handshake round trips per request; want mysql_native_password, 1", v.Key, rt.Auth, rt.HandshakeTrips)
		}
	}
	// Every comparison the variants allow was measured in pairs of adjacent slices.
	if want := len(questions.Pairs(res, nil)); len(res.Comparisons) != want || want == 0 {
		t.Errorf("%d comparisons measured, the variants allow %d", len(res.Comparisons), want)
	}
	for _, c := range res.Comparisons {
		if len(c.Pairs) < stats.MinPairs || len(questions.Ratios(res, c, units.QPS)) != len(c.Pairs) {
			t.Errorf("%s against %s: %d pairs, %d QPS ratios", c.Other, c.Base, len(c.Pairs), len(questions.Ratios(res, c, units.QPS)))
		}
		// The finding stored is the judgement of all of the comparison's pairs.
		if f, now := c.Finding, findings.Judge(res, c); f == nil || f.QPS == nil || f.AppCPU == nil || !reflect.DeepEqual(f, now) {
			t.Errorf("%s against %s: stored finding %+v, the pairs judge %+v", c.Other, c.Base, f, now)
		}
	}
	// The smoke preset profiles every variant: components per request, and files that
	// pprof's own reader opens (PHP's stacks written as pprof too).
	for _, v := range res.Variants {
		pr := v.Profile
		if pr == nil || pr.Requests == 0 || len(pr.Components) == 0 {
			t.Errorf("%s: no profile: %+v", v.Key, pr)
			continue
		}
		for _, kind := range []string{"cpu", "collapsed", "flame"} {
			if _, err := os.Stat(filepath.Join(out, pr.Files[kind])); pr.Files[kind] == "" || err != nil {
				t.Errorf("%s: profile file %s %q: %v", v.Key, kind, pr.Files[kind], err)
			}
		}
		f, err := os.Open(filepath.Join(out, pr.Files["cpu"]))
		if err != nil {
			continue
		}
		sampleType := map[string]string{"real": "wall"}[pr.Clock]
		if _, err := profile.ReadPprof(f, cmp.Or(sampleType, profile.CPU)); err != nil {
			t.Errorf("%s: %s: %v", v.Key, pr.Files["cpu"], err)
		}
		f.Close()
	}
	// The files on disk are whole and agree with what Run returned.
	onDisk, err := results.Read(filepath.Join(out, "results.json"))
	if err != nil || onDisk.Status != "complete" {
		t.Fatalf("results.json: %v (status %v)", err, onDisk)
	}
	bf, err := benchfile.ReadFile(filepath.Join(out, "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(bf.Sample(res.Variants[0].Name, units.QPS)); got != len(res.Variants[0].Reps) {
		t.Fatalf("bench.txt has %d req/s values for %s, results.json %d", got, res.Variants[0].Name, len(res.Variants[0].Reps))
	}
	dbtest.AssertNoChildren(t)
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestMismatchNamesEveryDifference(t *testing.T) {
	res := &roundtrip.Result{Requests: 10,
		Log:  map[string]int64{"Prepare": 10, "Execute": 10, "Close stmt": 10, "Query": 5},
		Wire: map[string]int64{"Prepare": 10, "Execute": 10, "Close stmt": 10, "Query": 5, "Ping": 10}}
	got := Mismatch(res, Expectation{Commands: map[string]int{"Prepare": 1, "Execute": 1, "Close stmt": 1, "Ping": 1}})
	want := "log Query: 0.50 per request, want 0; wire Query: 0.50 per request, want 0"
	if got != want {
		t.Fatalf("Mismatch = %q, want %q", got, want)
	}
	res.Log["Query"], res.Wire["Query"] = 0, 0
	if got := Mismatch(res, Expectation{Commands: map[string]int{"Prepare": 1, "Execute": 1, "Close stmt": 1, "Ping": 1}}); got != "" {
		t.Fatalf("Mismatch on agreeing counts = %q", got)
	}
}

// The ops end to end on the real Go target, built with the leak tag and told to lose
// updates in the orm layer only (DBBENCH_LEAK=lostupdate:1,layer:orm): every list,
// insert and update variant is verified against the fixtures and the table, counted as
// the matrix expects, and measured; raw's update keeps every visit, and orm's, which
// reads the counter without a lock, is caught losing some at 64 clients and marked
// invalid with the count, its figures never reported.
func TestOpsEndToEndAndALostUpdateCaught(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run skipped in -short mode")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	if out, err := revision.GoBuild(context.Background(), root, filepath.Join(binDir, "gotarget"), "leak").CombinedOutput(); err != nil {
		t.Fatalf("build gotarget -tags leak: %v\n%s", err, out)
	}
	t.Setenv("DBBENCH_LEAK", "lostupdate:1,layer:orm") // gotarget's name of beego
	m, err := matrix.Load(filepath.Join(root, "runners", "matrix.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Preset("ops")
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	res, err := Run(context.Background(), Options{
		Selection: Selection{Root: root, BinDir: binDir, Matrix: m, Preset: p, Variants: regexp.MustCompile(`^lang=go/server=nethttp/layer=(raw|orm)/stmt=interpolate/conn=persistent/pool=64/op=(list100|list10|insert|update)$`), DB: provider.Options{Rows: 1000}},
		Output:    Output{Out: t.TempDir(), Log: &log},
		Shape:     Shape{KeepAlive: true, Seed: 11, Connections: 64, Warmup: 300 * time.Millisecond, Duration: 400 * time.Millisecond, Reps: 2},
		Pairing:   Pairing{Budget: time.Second},
		Checks:    Checks{RoundtripRequests: 20},
	})
	t.Log(log.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Variants) != 8 {
		t.Fatalf("%d variants, want raw's and beego's 4 ops", len(res.Variants))
	}
	for _, v := range res.Variants {
		lost, ok, checked := v.LostUpdates()
		if v.Layer == "beego" && v.Op == "update" { // the pattern's layer=orm is beego's name before (matrix.yaml's was)
			if v.Valid || !strings.Contains(v.InvalidReason, "LOST UPDATES") || lost <= 0 {
				t.Errorf("the planted lost update was not caught: valid %v, %q, %d lost of %d", v.Valid, v.InvalidReason, lost, ok)
			}
			t.Logf("caught: %s", v.InvalidReason)
			continue
		}
		if !v.Valid {
			t.Errorf("%s invalid: %s", v.Key, v.InvalidReason)
			continue
		}
		if v.Roundtrips == nil || !v.Roundtrips.Match {
			t.Errorf("%s round trips differ from the matrix: %+v", v.Key, v.Roundtrips)
		}
		vf := v.Verification
		switch v.Op {
		case "list100", "list10":
			if vf.Bodies != v.Rows*verifySample/5 || vf.BadID != 400 {
				t.Errorf("%s verification %+v: want every row of %d pages checked", v.Key, vf, verifySample/5)
			}
		case "insert", "update":
			if vf.ReadBack != insertChecks {
				t.Errorf("%s verification %+v: want %d rows read back", v.Key, vf, insertChecks)
			}
		}
		if (v.Op == "update") != checked || lost != 0 || (checked && ok == 0) {
			t.Errorf("%s: %d lost of %d successful updates (checked %v)", v.Key, lost, ok, checked)
		}
	}
	if !slices.ContainsFunc(res.Comparisons, func(c *results.Comparison) bool { return c.Question == questions.Rows }) {
		t.Error("no list was compared with the shorter one")
	}
	dbtest.AssertNoChildren(t)
}
