package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad sweep input ends in one line naming the problem and exit status 2, before any
// database is started.
func TestSweepBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep"}, "'dbbench sweep pool [flags]' or 'dbbench sweep rtt [flags]'"},
		{[]string{"sweep", "latency"}, "want 'dbbench sweep pool"},
		{[]string{"sweep", "pool", "--concurrency", "16,x"}, `--concurrency: "x" is not a positive integer`},
		{[]string{"sweep", "pool", "--pools", "go=1;rust=2"}, `unknown lang "rust"`},
		{[]string{"sweep", "pool", "--variants", "lang=php/layer=raw/stmt=prepared/conn=persistent"}, `has no stmt "prepared"`},
		{[]string{"sweep", "pool", "--reps", "0"}, "--reps 0: must be 1 or more"},
		{[]string{"sweep", "pool", "--app-instances", "0"}, "--app-instances 0: must be 1 or more"},
		{[]string{"sweep", "pool", "--report-only"}, "--report-only needs --out"},
		{[]string{"sweep", "rtt", "--delays", "0,-1"}, `delays: "-1" is negative`},
		{[]string{"sweep", "rtt", "--delays", "1,1ms"}, "given twice"},
		{[]string{"sweep", "rtt", "--rate", "-5"}, "--rate -5: must be 0 or more"},
		{[]string{"sweep", "rtt", "--concurrency", "0"}, "--concurrency 0: must be 1 or more"},
		{[]string{"sweep", "rtt", "extra"}, `unexpected argument "extra"`},
	} {
		code, _, stderr := dbbench(t, nil, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("dbbench %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
		if strings.Contains(stderr, "provisioning") {
			t.Errorf("dbbench %s started a database before rejecting its input", strings.Join(tc.args, " "))
		}
	}
}

func TestSweepReportOnlyOfAnEmptyDirectory(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := dbbench(t, nil, "sweep", "rtt", "--report-only", "--out", dir)
	if code != 1 || !strings.Contains(stderr, "holds no rtt sweep") {
		t.Fatalf("exit %d, stderr %q; want 1 and a line saying the directory holds no rtt sweep", code, stderr)
	}
	code, _, stderr = dbbench(t, nil, "sweep", "pool", "--report-only", "--out", dir)
	if code != 1 || !strings.Contains(stderr, "holds no pool sweep") {
		t.Fatalf("exit %d, stderr %q; want 1 and a line saying the directory holds no pool sweep", code, stderr)
	}
}

// --report-only of a sweep sizes for the sweep's own need unless a flag says otherwise:
// the committed sample (1500 req/s at 1ms) re-renders as it was, and --rate changes it.
func TestSweepReportOnlyKeepsTheSweepsNeed(t *testing.T) {
	b, err := os.ReadFile("../../../reports/sample/pool-sweep/results.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{{nil, "at 1500 req/s per app instance, p99 ≤ 50ms, 1ms to the database"}, {[]string{"--rate", "700"}, "at 700 req/s per app instance, p99 ≤ 50ms, 1ms to the database"}} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		code, _, stderr := dbbench(t, nil, append([]string{"sweep", "pool", "--report-only", "--out", dir}, c.args...)...)
		md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
		if code != 0 || !strings.Contains(string(md), c.want) {
			t.Errorf("%v: exit %d (%s); report.md lacks %q", c.args, code, stderr, c.want)
		}
	}
}
