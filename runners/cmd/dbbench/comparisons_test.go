package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"dbbench/runners/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// Every ratio with its interval on the report's first screen (the answers, before the
// first section) is printed, identical, by the terminal's closing comparisons: the two
// outputs of a run quote one computation.
func TestTerminalPrintsTheReportsRatios(t *testing.T) {
	out := firstScreenOnTerminal(t, "../../present/report/testdata/quick-results.json")
	// The closing output's wording and figures, as a golden file (make golden rewrites it).
	golden.Check(t, "testdata/closing.txt", out, *update)
	if !bytes.Contains(out, []byte("commands/req")) {
		t.Error("a run on MySQL heads its counts commands/req")
	}
}

// The same on PostgreSQL (the committed sample, with pgx's modes and PHP beside them),
// whose counts are frontend messages.
func TestTerminalPrintsThePostgreSQLReportsRatios(t *testing.T) {
	out := firstScreenOnTerminal(t, "../../../reports/sample/postgres-quick/results.json")
	if !bytes.Contains(out, []byte(" messages/req")) || bytes.Contains(out, []byte("commands")) {
		t.Error("a run on PostgreSQL alone heads its counts messages/req")
	}
}

// firstScreenOnTerminal writes the report of a copy of resultsFile and checks that every
// ratio with its interval on its first screen is in the terminal's closing output,
// which it returns.
func firstScreenOnTerminal(t *testing.T, resultsFile string) []byte {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(resultsFile)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	j, cs, err := writeReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	printSummary(&out, j)
	printComparisons(&out, cs)
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(md), "\n## ")
	first = strings.Join(strings.Fields(first), " ") // report.md wraps its lines
	ratios := regexp.MustCompile(`\d+\.\d+× \[\d+\.\d+, \d+\.\d+\]`).FindAllString(first, -1)
	if len(ratios) < 5 {
		t.Fatalf("the report's first screen holds %d ratios with intervals, want the answers' (5 or more):\n%s", len(ratios), first)
	}
	for _, r := range ratios {
		if !strings.Contains(out.String(), r) {
			t.Errorf("the report's %q is not on the terminal:\n%s", r, out.String())
		}
	}
	t.Logf("%d ratios of the first screen, all on the terminal:\n%s", len(ratios), out.String())
	return out.Bytes()
}
