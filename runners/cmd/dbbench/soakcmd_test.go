package main

import (
	"strings"
	"testing"

	"dbbench/runners/soak"
)

// Bad soak input ends in one line naming the problem and exit status 2, before any
// database is started.
func TestSoakBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"soak", "--duration", "0"}, "--duration 0s: must be above 0"},
		{[]string{"soak", "--duration", "-5m"}, "--duration -5m0s: must be above 0"},
		{[]string{"soak", "--duration", "an hour"}, `invalid value "an hour" for flag -duration: want a duration like 500ms, 90s, 5m or 1h`},
		{[]string{"soak", "--duration", "60"}, `invalid value "60" for flag -duration: want a duration`},
		{[]string{"soak", "--interval", "0s"}, "--interval 0s: must be above 0"},
		{[]string{"soak", "--duration", "1m", "--interval", "2m"}, "longer than --duration"},
		{[]string{"soak", "--duration", "1m", "--warmup", "1m"}, "leaves nothing"},
		{[]string{"soak", "--variants", "lang=go/layer=orn/stmt=prepare/conn=persistent"}, `go has no layer "orn"`},
		{[]string{"soak", "--variants", "lang=cobol/layer=raw/stmt=prepare/conn=persistent"}, `unknown lang "cobol"`},
		{[]string{"soak", "--variants", "lang=php/layer=raw/stmt=prepared/conn=persistent"}, `has no stmt "prepared"`},
		{[]string{"soak", "--pools", "go=16,rust=2"}, `unknown lang "rust"`},
		{[]string{"soak", "--rate-fraction", "0"}, "--rate-fraction 0: must be above 0 and at most 1"},
		{[]string{"soak", "--report-only"}, "--report-only needs --out"},
		{[]string{"soak", "extra"}, `unexpected argument "extra"`},
		{[]string{"soak", "--durration", "1m"}, "flag provided but not defined: -durration"},
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

func TestSoakReportOnlyOfAnEmptyDirectory(t *testing.T) {
	code, _, stderr := dbbench(t, nil, "soak", "--report-only", "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "holds no soak") {
		t.Fatalf("exit %d, stderr %q; want 1 and a line saying the directory holds no soak", code, stderr)
	}
}

// A short soak whose prepared statements rise, too briefly to tell a leak from
// settling, exits 4 and names the series; the same soak without the rise exits 0.
func TestSoakRisingUnresolvedHasItsOwnExitStatus(t *testing.T) {
	noise := []float64{15, -6, 20, -17, 2, 11, -14, 7, -20, 18, -4, 13, -15, 4, 16, -11, 9, -19, 5, 14, -8, 18, -13, 1}
	for _, c := range []struct {
		slope float64
		code  int
		want  string
	}{{0.25, 4, "Prepared_stmt_count"}, {0, 0, "nothing the database holds rises"}} {
		dir := t.TempDir()
		s := &soak.Series{Name: "prepared_stmt_count", Label: "Prepared_stmt_count", Unit: "count", Kind: soak.Count}
		for i, n := range noise {
			ts := 60 + 10*float64(i)
			s.Add(ts, 100+c.slope*ts+n)
		}
		f := &soak.File{Schema: soak.Schema, Status: "complete", Samples: len(noise),
			Settings: soak.Settings{Duration: "5m0s", Interval: "10s", Warmup: "1m0s", WarmupSeconds: 60},
			Database: &soak.Role{Series: []*soak.Series{s}}}
		if err := f.Write(dir); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := dbbench(t, nil, "soak", "--report-only", "--out", dir)
		if code != c.code || !strings.Contains(stdout+stderr, c.want) {
			t.Errorf("slope %g/s: exit %d, stdout %q, stderr %q; want %d and %q", c.slope, code, stdout, stderr, c.code, c.want)
		}
	}
}
