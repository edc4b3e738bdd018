package run

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"dbbench/runners/measure/profile"
)

// perfHz is perf's sampling rate: a prime, so that it does not beat with a periodic
// timer of the target. A frequency, not a fixed period: perf's cpu-clock is an hrtimer,
// and when one fires late (the vCPU descheduled by the host) the kernel counts one
// period where more passed; with -F it adapts the period to the time that passed. On
// php-fpm under load, a fixed period and -F were each measured against the CPU schedstat
// accounted over the same seconds (runners/measure/profile/README.md, "Which profiler", has the
// figures).
const perfHz = 997

// recordPerf samples the CPU of pids (every thread) with perf's cpu-clock event into
// dir/perf.data until stop is closed or ctx ends, with opts added (-g for call
// graphs). Sample times are CLOCK_MONOTONIC's (monoNow), so that a window read around
// other measurements selects the same seconds. Unlike Go's own profiler, whose
// per-thread timers lose the samples of an overrun, perf's software clock sampled about
// as much CPU as the kernel accounted (runners/measure/profile/README.md, "Which profiler", has
// the figures). Read the recording outside the measured window: perf script burns CPU
// of its own, which the window would count.
func recordPerf(ctx context.Context, pids []int, stop <-chan struct{}, dir string, opts ...string) error {
	ids := make([]string, len(pids))
	for i, pid := range pids {
		ids[i] = strconv.Itoa(pid)
	}
	args := append([]string{"record", "-e", "cpu-clock", "-F", strconv.Itoa(perfHz), "-k", "CLOCK_MONOTONIC",
		"-q", "-B", "-N", "-o", filepath.Join(dir, perfData), "-p", strings.Join(ids, ",")}, opts...)
	rec := exec.Command("perf", args...)
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
	case <-stop:
	case <-ctx.Done():
	}
	if err := rec.Process.Signal(os.Interrupt); err != nil {
		return fmt.Errorf("perf record: stopping it: %w", err)
	}
	<-exited // perf writes its file, then dies of the interrupt: the reader checks the file
	return ctx.Err()
}

// perfAttach is how long perf may take to attach to a target's threads before the
// window it must cover begins: more than it was measured to take for a Go target
// (README.md, "Measured").
const perfAttach = 500 * time.Millisecond

// readPerf reads and removes dir's recording made with call graphs: the stacks of the
// samples taken in [from, to) (CLOCK_MONOTONIC nanoseconds), in nanoseconds.
func readPerf(ctx context.Context, dir string, from, to int64) (*profile.Profile, error) {
	return parsePerf(ctx, dir, profile.PerfScriptFields, from, to, profile.ReadPerfScript)
}

// parsePerf runs perf script with fields on dir's recording, removes it, and parses
// what it printed with parse, keeping the samples taken in [from, to).
func parsePerf[T any](ctx context.Context, dir, fields string, from, to int64, parse func(io.Reader, int64, int64) (T, error)) (T, error) {
	var none T
	out, err := perfScript(ctx, dir, fields)
	if err != nil {
		return none, err
	}
	v, err := parse(bytes.NewReader(out), from, to)
	if err != nil {
		return none, fmt.Errorf("perf: %w", err)
	}
	return v, nil
}

// perfScript runs perf script on dir's recording, times in nanoseconds, and removes it.
func perfScript(ctx context.Context, dir, fields string) ([]byte, error) {
	data := filepath.Join(dir, perfData)
	defer os.Remove(data)
	script := exec.CommandContext(ctx, "perf", "script", "--ns", "-i", data, "-F", fields)
	var stderr bytes.Buffer
	script.Stderr = &stderr
	out, err := script.Output()
	if err != nil {
		return nil, fmt.Errorf("perf script: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// monoNow is CLOCK_MONOTONIC in nanoseconds: perf's sample times with -k
// CLOCK_MONOTONIC, and PHP's hrtime().
func monoNow() int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		panic(fmt.Sprintf("clock_gettime(CLOCK_MONOTONIC): %v", err)) // cannot fail on Linux
	}
	return ts.Nano()
}

// readPerfSamples reads and removes dir's recording made without call graphs: the
// samples taken in [from, to) (CLOCK_MONOTONIC nanoseconds), each a process and a time.
func readPerfSamples(ctx context.Context, dir string, from, to int64) ([]profile.CPUSample, error) {
	return parsePerf(ctx, dir, profile.PerfSampleFields, from, to, profile.ReadPerfSamples)
}

const perfData = "perf.data"

// havePerf says whether perf can be run: without it a Go profile's components come
// from Go's own profiler, which misses some of the CPU.
func havePerf() bool {
	_, err := exec.LookPath("perf")
	return err == nil
}
