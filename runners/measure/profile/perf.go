package profile

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// PerfScriptFields is the -F argument of `perf script` that ReadPerfScript reads.
const PerfScriptFields = "time,period,ip,sym"

// KernelSuffix marks a kernel frame, as flamegraph.pl's collapsing does: no row of the
// table matches one, so a system call's kernel time goes to the frame that made it.
const KernelSuffix = "_[k]"

// kernelStart is where x86-64's kernel half of the address space begins.
const kernelStart = 0xffff800000000000

// ReadPerfScript reads `perf script --ns -F time,period,ip,sym` of a cpu-clock recording
// with call graphs: per sample a line "TIME: PERIOD", its frames leaf first, one a line
// ("ADDR SYMBOL"), and a blank line. It returns the stacks of the samples taken in
// [from, to) (nanoseconds of the recording's clock; from = to = 0 keeps all), weighted
// by their period in nanoseconds.
//
// Why perf as well as Go's own profile: Go's CPU profiler drops a tick's samples when
// a thread's timer overruns, and it lost part of the target's CPU
// (runners/measure/profile/README.md, "Which profiler", has the measurements).
func ReadPerfScript(r io.Reader, from, to int64) (*Profile, error) {
	p := &Profile{Unit: "nanoseconds"}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var cur *Stack
	keep := false
	n, line := 0, 0
	flush := func() {
		if cur == nil || !keep {
			cur = nil
			return
		}
		if len(cur.Frames) == 0 {
			cur.Frames = []string{NoFrame}
		}
		// Read leaf first: reverse into root first.
		for i, j := 0, len(cur.Frames)-1; i < j; i, j = i+1, j-1 {
			cur.Frames[i], cur.Frames[j] = cur.Frames[j], cur.Frames[i]
		}
		p.Stacks = append(p.Stacks, *cur)
		cur = nil
	}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "":
			flush()
		case cur == nil:
			t, period, err := perfHeader(text)
			if err != nil {
				return nil, fmt.Errorf("perf script line %d: %w", line, err)
			}
			at := int64(math.Round(t * 1e9))
			if keep = from == to || at >= from && at < to; keep {
				n++
			}
			cur = &Stack{Weight: period}
		default:
			cur.Frames = append(cur.Frames, perfFrame(text))
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading perf script: %w", err)
	}
	flush()
	if n < 2 {
		return nil, fmt.Errorf("perf recorded %d samples in the window: too few for a profile", n)
	}
	p.Merge()
	return p, nil
}

// perfHeader reads "23882.276052:    1003009" (seconds, then the period in nanoseconds).
func perfHeader(text string) (float64, int64, error) {
	ts, period, ok := strings.Cut(text, ":")
	if !ok {
		return 0, 0, fmt.Errorf("want \"TIME: PERIOD\", got %q", text)
	}
	t, err := strconv.ParseFloat(strings.TrimSpace(ts), 64)
	if err != nil {
		return 0, 0, fmt.Errorf("time in %q: %w", text, err)
	}
	// The event's name may follow the period ("1003009 cpu-clock:").
	fields := strings.Fields(period)
	if len(fields) == 0 {
		return 0, 0, fmt.Errorf("no period in %q", text)
	}
	w, err := strconv.ParseInt(fields[0], 10, 64)
	if err != nil || w <= 0 {
		return 0, 0, fmt.Errorf("period in %q: want nanoseconds", text)
	}
	return t, w, nil
}

// perfFrame names one frame line, "ffffffff81ff85a6 ip_local_deliver_finish": the
// symbol, KernelSuffix added in the kernel's half, the address when perf has no symbol.
func perfFrame(text string) string {
	addr, sym, _ := strings.Cut(text, " ")
	sym = strings.TrimSpace(sym)
	ip, err := strconv.ParseUint(addr, 16, 64)
	if sym == "" || sym == "[unknown]" {
		sym = "0x" + addr
	}
	if err == nil && ip >= kernelStart {
		return sym + KernelSuffix
	}
	return sym
}
