package run

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"dbbench/runners/benchfile"
	"dbbench/runners/dbtest"
	"dbbench/runners/matrix"
	"dbbench/runners/provider"
	"dbbench/runners/results"
	"dbbench/runners/roundtrip"
)

// The smoke preset end to end, as `make test` runs it: every variant present and valid,
// round trips equal to the matrix's expectations, whole output files, and no process
// left behind.
func TestSmokePresetEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end run skipped in -short mode")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	binDir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", filepath.Join(binDir, "gotarget"), "dbbench/go/cmd/gotarget").CombinedOutput(); err != nil {
		t.Fatalf("build gotarget: %v\n%s", err, out)
	}
	m, err := matrix.Load(filepath.Join(root, "runners", "matrix.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := m.Preset("smoke")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var log strings.Builder
	res, err := Run(context.Background(), Options{
		Root: root, BinDir: binDir, Matrix: m, Preset: p, Out: out, KeepAlive: true, Seed: 7,
		DB: provider.Options{Rows: 10000}, Log: &log,
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
		if len(v.Reps) != p.Reps {
			t.Errorf("%s has %d reps, want %d", v.Key, len(v.Reps), p.Reps)
		}
		for _, r := range v.Reps {
			if r.OK == 0 || r.QPS <= 0 || r.P50 <= 0 || r.P99 < r.P50 || r.AppCPU <= 0 || r.GenCPU <= 0 {
				t.Errorf("%s rep %d has implausible figures: %+v", v.Key, r.Rep, *r)
			}
		}
		if v.Layer == "hello" {
			continue
		}
		if v.Roundtrips == nil || !v.Roundtrips.Match {
			t.Errorf("%s round trips differ from the matrix: %+v", v.Key, v.Roundtrips)
		}
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
	if got := len(bf.Sample(want[0].Name(), "req/s")); got != p.Reps {
		t.Fatalf("bench.txt has %d req/s values for %s, want %d", got, want[0].Name(), p.Reps)
	}
	dbtest.AssertNoChildren(t)
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestMismatchNamesEveryDifference(t *testing.T) {
	res := &roundtrip.Result{Requests: 10,
		Log:  map[string]int64{"Prepare": 10, "Execute": 10, "Close stmt": 10, "Query": 5},
		Wire: map[string]int64{"Prepare": 10, "Execute": 10, "Close stmt": 10, "Query": 5, "Ping": 10}}
	got := Mismatch(res, map[string]int{"Prepare": 1, "Execute": 1, "Close stmt": 1, "Ping": 1})
	want := "log Query: 0.50 per request, want 0; wire Query: 0.50 per request, want 0"
	if got != want {
		t.Fatalf("Mismatch = %q, want %q", got, want)
	}
	res.Log["Query"], res.Wire["Query"] = 0, 0
	if got := Mismatch(res, map[string]int{"Prepare": 1, "Execute": 1, "Close stmt": 1, "Ping": 1}); got != "" {
		t.Fatalf("Mismatch on agreeing counts = %q", got)
	}
}

func TestCheckUser(t *testing.T) {
	if err := CheckUser(42, []byte(`{"id":42,"name":"Zo\u00eb Gray #42"}`)); err != nil {
		t.Fatalf("escaped unicode must pass: %v", err)
	}
	for _, body := range []string{`{"id":42,"name":"Zoe Gray #42"}`, `{"id":41,"name":"Zoë Gray #42"}`, `{"name":"Zoë Gray #42"}`, `<html>`} {
		if err := CheckUser(42, []byte(body)); err == nil {
			t.Errorf("CheckUser accepted %s", body)
		}
	}
}
