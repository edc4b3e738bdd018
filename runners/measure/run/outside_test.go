package run

import (
	"testing"
	"time"

	"dbbench/runners/results"
)

// What other processes took is the machine's busy time less the measured roles' own,
// over the wall time, never below 0; unknown where a role's CPU was not read.
func TestOutside(t *testing.T) {
	rep := &results.Repetition{AppCPU: 40e-6, DBCPU: 30e-6, GenCPU: 10e-6} // 80 µs a request
	// 10 000 requests in 1 s: the roles took 0.8 s of CPU; the machine was busy 1.4 s.
	if got := outside(1400*time.Millisecond, rep, 10000, time.Second); got == nil || *got < 0.5999 || *got > 0.6001 {
		t.Errorf("outside = %v, want 0.6 cores", got)
	}
	if got := outside(700*time.Millisecond, rep, 10000, time.Second); got == nil || *got != 0 {
		t.Errorf("busy below the roles' own (ticks truncate): %v, want 0", got)
	}
	remote := &results.Repetition{AppCPU: 40e-6, DBCPU: -1, GenCPU: 10e-6}
	if got := outside(time.Second, remote, 10000, time.Second); got != nil {
		t.Errorf("a database on another host: %v, want nil (unknown)", *got)
	}
	if got := outside(time.Second, rep, 0, time.Second); got != nil {
		t.Errorf("no request: %v, want nil", *got)
	}
}
