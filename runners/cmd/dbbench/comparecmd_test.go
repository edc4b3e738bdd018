package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"dbbench/runners/judge/compare"
	"dbbench/runners/judge/compare/comparetest"
	"dbbench/runners/results"
)

// runDir writes r as a run directory and returns it.
func runDir(t *testing.T, r *results.Run) string {
	t.Helper()
	dir := t.TempDir()
	if err := results.WriteJSON(filepath.Join(dir, "results.json"), r); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bench.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// errorLine is the one "dbbench: " line of stderr, "" if there is none.
func errorLine(t *testing.T, stderr string) string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if strings.HasPrefix(l, "dbbench: ") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 1 {
		t.Fatalf("%d error lines, want at most one:\n%s", len(lines), stderr)
	}
	if len(lines) == 0 {
		return ""
	}
	return lines[0]
}

// The exit status: 0 whatever the verdicts without --fail-on; with --fail-on regression,
// 3 only for a regression that survives normalisation or a count change, 4 when
// nothing regressed but some figures cannot be told (another kernel).
func TestCompareExitStatus(t *testing.T) {
	old := runDir(t, comparetest.Run(1))
	same := runDir(t, comparetest.Run(1))
	machine := comparetest.Run(2)
	comparetest.Machine(machine, 0.6)
	slowMachine := runDir(t, machine)
	slow := comparetest.Run(2)
	comparetest.Slow(slow, comparetest.Gorm, 0.9)
	slowDir := runDir(t, slow)
	commands := comparetest.Run(2)
	comparetest.AddCommands(commands, comparetest.Gorm, 2)
	commandsDir := runDir(t, commands)
	kernel := comparetest.Run(2)
	kernel.Environment["kernel"] = "6.18.44-fc-v1300"
	kernelDir := runDir(t, kernel)
	comparetest.AddCommands(kernel, comparetest.Gorm, 2)
	kernelCommandsDir := runDir(t, kernel)

	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		stdout  string // a line the output must hold
		errLine string
	}{
		{"identical", []string{old, same}, 0, "gate: no regression survives normalisation and no count changed", ""},
		{"identical, gated", []string{"--fail-on", "regression", old, same}, 0, "environment: the same", ""},
		{"slower machine, gated", []string{"--fail-on", "regression", old, slowMachine}, 0, "environment changed; absolute figures are judged relative to it", ""},
		{"slower variant, no gate", []string{old, slowDir}, 0, "absolute figures      5 regressed", ""},
		{"slower variant, gated", []string{"--fail-on", "regression", old, slowDir}, 3, "within-run ratios     2 regressed",
			"dbbench: compare --fail-on regression: 7 regressions that survive normalisation, 0 deterministic counts changed"},
		{"more commands, gated", []string{"--fail-on=regression", old, commandsDir}, 3, "deterministic counts  3 changed (3 up, 0 down)",
			"dbbench: compare --fail-on regression: 0 regressions that survive normalisation, 3 deterministic counts changed"},
		{"margin 50%", []string{"--margin", "50", "--fail-on", "regression", old, slowDir}, 0, "noise threshold 50.0%", ""},
		{"noise 50%, the margin's earlier name", []string{"--noise", "50", "--fail-on", "regression", old, slowDir}, 0, "noise threshold 50.0%", ""},
		{"another kernel, gated", []string{"--fail-on", "regression", old, kernelDir}, 4, "cannot tell, absolute figures: the machine changed (kernel",
			"dbbench: compare cannot tell: nothing regressed among the figures that could be judged, and some could not be, for 2 reasons (the gate's lines)"},
		{"another kernel, no gate", []string{old, kernelDir}, 0, "gate: cannot tell", ""},
		{"another kernel and more commands, gated", []string{"--fail-on", "regression", old, kernelCommandsDir}, 3, "cannot tell, absolute figures: the machine changed",
			"dbbench: compare --fail-on regression: 0 regressions that survive normalisation, 3 deterministic counts changed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := dbbench(t, nil, append([]string{"compare"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit status %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			if !strings.HasPrefix(stdout, "dbbench compare: "+tc.args[len(tc.args)-2]+" → "+tc.args[len(tc.args)-1]+"\n") || !strings.Contains(stdout, tc.stdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.stdout, stdout[:min(len(stdout), 2000)])
			}
			if got := errorLine(t, stderr); got != tc.errLine {
				t.Errorf("error line %q, want %q", got, tc.errLine)
			}
		})
	}
}

// --format json gives the same data, and --fail-on works with it too.
func TestCompareJSON(t *testing.T) {
	slow := comparetest.Run(2)
	comparetest.Slow(slow, comparetest.Gorm, 0.9)
	code, stdout, stderr := dbbench(t, nil, "compare", "--format", "json", "--fail-on", "regression", runDir(t, comparetest.Run(1)), runDir(t, slow))
	if code != 3 {
		t.Fatalf("exit status %d, want 3; stderr: %s", code, stderr)
	}
	var res compare.Result
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not the json of a comparison: %v\n%s", err, stdout[:min(len(stdout), 500)])
	}
	if !res.Gate.Fails || res.Gate.Regressions != 7 || len(res.Summary) != 3 || len(res.Largest) != 7 || !res.Yardstick.Normalised {
		t.Errorf("decoded: gate %+v, summary %+v, %d largest", res.Gate, res.Summary, len(res.Largest))
	}
	for _, row := range res.Largest {
		if row.Variant != comparetest.Gorm || row.Verdict != compare.Regressed {
			t.Errorf("largest change %s %s %s, want only %s regressed", row.Variant, row.Unit, row.Verdict, comparetest.Gorm)
		}
	}
}

// A baseline saved by name is found under the repository's reports/baselines (or
// --baselines), and the output names it.
func TestCompareBaseline(t *testing.T) {
	root := t.TempDir()
	if _, err := compare.SaveBaseline(runDir(t, comparetest.Run(1)), filepath.Join(root, "reports", "baselines"), "main"); err != nil {
		t.Fatal(err)
	}
	new := runDir(t, comparetest.Run(2))
	code, stdout, stderr := dbbench(t, []string{"DBBENCH_ROOT=" + root}, "compare", "--baseline", "main", "--fail-on", "regression", new)
	if code != 0 || !strings.HasPrefix(stdout, "dbbench compare: baseline main → "+new+"\n") {
		t.Fatalf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout[:min(len(stdout), 500)])
	}
	code, _, stderr = dbbench(t, nil, "compare", "--baselines", filepath.Join(root, "reports", "baselines"), "--baseline", "main", new)
	if code != 0 {
		t.Fatalf("--baselines: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = dbbench(t, []string{"DBBENCH_ROOT=" + root}, "compare", "--baseline", "nope", new)
	if code != 1 || !strings.Contains(errorLine(t, stderr), `baseline "nope" not found`) {
		t.Errorf("missing baseline: exit %d, stderr %s", code, stderr)
	}
}

// A results.json of schema v1 (no yardstick, no pairs, no counts) compares without a
// crash, says what it could not normalise, and cannot tell (exit status 4).
func TestCompareOldRun(t *testing.T) {
	v1 := t.TempDir()
	b, err := os.ReadFile("../../judge/compare/testdata/v1-quick.json")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(v1, "results.json"), b, 0o644)
	code, stdout, stderr := dbbench(t, nil, "compare", "--fail-on", "regression", v1, v1)
	if code != 4 || !strings.Contains(stdout, "yardstick: neither run has one: absolute figures are shown as they are (not normalised), and cannot be told") ||
		!strings.Contains(stdout, "neither run has a yardstick (made before dbbench timed one)") {
		t.Errorf("exit %d, stderr %s, stdout:\n%s", code, stderr, stdout[:min(len(stdout), 3000)])
	}
}

func TestCompareBadInput(t *testing.T) {
	dir := runDir(t, comparetest.Run(1))
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{dir}, 2, "want (--baseline NAME | OLD_DIR) NEW_DIR, got 1 directories"},
		{[]string{"--format", "xml", dir, dir}, 2, "--format xml: must be one of text, json"},
		{[]string{"--fail-on", "slower", dir, dir}, 2, "--fail-on slower: must be one of regression"},
		{[]string{"--noise", "100", dir, dir}, 2, "--noise 100: must be a percentage from 0 to below 100"},
		{[]string{"--margin", "100", dir, dir}, 2, "--margin 100: must be a percentage from 0 to below 100"},
		{[]string{dir, filepath.Join(dir, "missing")}, 1, "no such file or directory"},
	} {
		code, _, stderr := dbbench(t, nil, append([]string{"compare"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errorLine(t, stderr), tc.want) {
			t.Errorf("compare %q: exit %d, stderr %s; want %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}
