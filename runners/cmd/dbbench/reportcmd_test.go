package main

import (
	"strings"
	"testing"
)

// -h says what a command takes and does, not only "usage: dbbench report [flags]".
func TestReportHelpSaysWhatItTakes(t *testing.T) {
	code, _, stderr := dbbench(t, nil, "report", "-h")
	if code != 0 || !strings.Contains(stderr, "usage: dbbench report [flags] RUN_DIR") ||
		!strings.Contains(stderr, "write report.md and report.html for a run directory") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}
