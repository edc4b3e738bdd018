package main

import (
	"strings"
	"testing"
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
