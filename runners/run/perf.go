package run

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"dbbench/runners/profile"
)

// perfHz is perf's sampling rate: a prime, so that it does not beat with a periodic
// timer of the target.
const perfHz = 997

// recordPerf samples the CPU of pids (every thread) with perf's cpu-clock event and
// call graphs for secs seconds into dir/perf.data. Unlike Go's own profiler, whose
// per-thread timers lose the samples of an overrun, perf's software clock sampled
// 98–103% of the CPU the kernel accounted (runners/profile/README.md, "Which
// profiler"). Read the recording with readPerf, outside the measured window: perf
// script takes a second or two of CPU.
func recordPerf(ctx context.Context, pids []int, secs int, dir string) error {
	ids := make([]string, len(pids))
	for i, pid := range pids {
		ids[i] = strconv.Itoa(pid)
	}
	// No workload to time it ("-- sleep N" kept perf running a second longer than N):
	// perf records until it is interrupted, and the samples' own times give the span.
	rec := exec.Command("perf", "record", "-e", "cpu-clock", "-F", strconv.Itoa(perfHz), "-g", "-q",
		"-B", "-N", "-o", filepath.Join(dir, perfData), "-p", strings.Join(ids, ","))
	var out bytes.Buffer
	rec.Stdout, rec.Stderr = &out, &out
	if err := rec.Start(); err != nil {
		return fmt.Errorf("perf record: %w", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- rec.Wait() }()
	select {
	case err := <-exited: // before its time: it could not record
		return fmt.Errorf("perf record: exited early: %v: %s", err, strings.TrimSpace(out.String()))
	case <-time.After(time.Duration(secs) * time.Second):
	case <-ctx.Done():
	}
	if err := rec.Process.Signal(os.Interrupt); err != nil {
		return fmt.Errorf("perf record: stopping it: %w", err)
	}
	<-exited // perf writes its file, then dies of the interrupt: readPerf checks the file
	return ctx.Err()
}

// readPerf reads and removes dir's recording: the stacks in nanoseconds and the time
// they span.
func readPerf(ctx context.Context, dir string) (*profile.Profile, time.Duration, error) {
	data := filepath.Join(dir, perfData)
	defer os.Remove(data)
	script := exec.CommandContext(ctx, "perf", "script", "-i", data, "-F", profile.PerfScriptFields)
	var stderr bytes.Buffer
	script.Stderr = &stderr
	out, err := script.Output()
	if err != nil {
		return nil, 0, fmt.Errorf("perf script: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	p, span, err := profile.ReadPerfScript(bytes.NewReader(out))
	if err != nil {
		return nil, 0, fmt.Errorf("perf: %w", err)
	}
	return p, span, nil
}

const perfData = "perf.data"

// havePerf says whether perf can be run: without it a Go profile's components come
// from Go's own profiler, which misses some of the CPU.
func havePerf() bool {
	_, err := exec.LookPath("perf")
	return err == nil
}
