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

// Every command's -h says what it does; a group's (db, sweep) lists its commands on
// stdout, exit 0.
func TestEveryCommandsHelpSaysWhatItDoes(t *testing.T) {
	for _, c := range commands {
		code, _, stderr := dbbench(t, nil, append(strings.Fields(c.name), "-h")...)
		if code != 0 || !strings.Contains(stderr, "usage: dbbench "+c.name) || !strings.Contains(stderr, c.about) {
			t.Errorf("dbbench %s -h: exit %d, stderr %q", c.name, code, stderr)
		}
	}
	for group, want := range map[string]string{"db": "db up", "sweep": "sweep rtt"} {
		code, stdout, _ := dbbench(t, nil, group, "-h")
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("dbbench %s -h: exit %d, stdout %q; want 0 and %q", group, code, stdout, want)
		}
	}
}
