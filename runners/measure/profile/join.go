package profile

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Frames that JoinCPU names for CPU no PHP sample explains: the web server's, and
// php-fpm's own outside a profiled request (FastCGI, the engine's request start and
// end). The table gives the first to the HTTP server, the second to the runtime.
const (
	NginxFrame = "[nginx]"
	FPMFrame   = "[php-fpm]"
)

// TimedStack is one wall-clock sample of a PHP process: when it was taken
// (CLOCK_MONOTONIC, nanoseconds) and its frames, root first.
type TimedStack struct {
	PID    int
	At     int64
	Frames []string
}

// CPUSample is one of perf's cpu-clock samples without a call graph: which process ran,
// when (CLOCK_MONOTONIC, nanoseconds) and the CPU time it stands for.
type CPUSample struct {
	PID    int
	Comm   string
	At     int64
	Weight int64
}

// JoinCPU turns wall-clock stacks into a CPU profile. php-fpm's profiler lives for one
// request, too short for a CPU timer (php/README.md, "Profiles"), so it samples wall
// time, waits included. perf samples the processes' CPU, but sees no PHP frame. Each
// CPU sample goes to the wall-clock sample of the same process nearest in time, if one
// is within tolerance: that is what the process was running then. The rest is CPU
// outside a sampled request: NginxFrame for the web server's processes, FPMFrame
// otherwise. A wall sample taken while the process waited for the database gets no CPU
// sample, so waits drop out. It returns the profile in nanoseconds and the share of
// the PHP processes' CPU that found a stack.
func JoinCPU(cpu []CPUSample, wall []TimedStack, tolerance time.Duration) (*Profile, float64) {
	byPID := map[int][]TimedStack{}
	for _, s := range wall {
		byPID[s.PID] = append(byPID[s.PID], s)
	}
	for _, ss := range byPID {
		slices.SortFunc(ss, func(a, b TimedStack) int { return cmp.Compare(a.At, b.At) })
	}
	p := &Profile{Unit: "nanoseconds"}
	var php, matched int64
	for _, c := range cpu {
		frames := []string{FPMFrame}
		if strings.HasPrefix(c.Comm, "nginx") {
			frames = []string{NginxFrame}
		} else {
			php += c.Weight
			if s, ok := nearest(byPID[c.PID], c.At, int64(tolerance)); ok {
				frames = s.Frames
				matched += c.Weight
			}
		}
		p.Stacks = append(p.Stacks, Stack{Frames: frames, Weight: c.Weight})
	}
	p.Merge()
	share := 0.0
	if php > 0 {
		share = float64(matched) / float64(php)
	}
	return p, share
}

// nearest is the sample of ss (sorted by time) closest to at, if within tol.
func nearest(ss []TimedStack, at, tol int64) (TimedStack, bool) {
	i, _ := slices.BinarySearchFunc(ss, at, func(s TimedStack, t int64) int { return cmp.Compare(s.At, t) })
	best, dist := -1, tol+1
	for _, j := range []int{i - 1, i} {
		if j >= 0 && j < len(ss) {
			if d := abs64(ss[j].At - at); d < dist {
				best, dist = j, d
			}
		}
	}
	if best < 0 {
		return TimedStack{}, false
	}
	return ss[best], true
}

// ReadTimed reads a .timed file of one process ("MONOTONIC_NS frame;frame;…" lines).
func ReadTimed(r io.Reader, pid int) ([]TimedStack, error) {
	var out []TimedStack
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for n := 1; sc.Scan(); n++ {
		at, stack, ok := strings.Cut(sc.Text(), " ")
		t, err := strconv.ParseInt(at, 10, 64)
		if !ok || err != nil || stack == "" {
			return nil, fmt.Errorf("timed stacks line %d: want \"NANOSECONDS frame;frame\", got %q", n, clip(sc.Text()))
		}
		out = append(out, TimedStack{PID: pid, At: t, Frames: strings.Split(stack, ";")})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading timed stacks: %w", err)
	}
	return out, nil
}

// PerfSampleFields is the -F argument of `perf script` that ReadPerfSamples reads; the
// recording must be made with -k CLOCK_MONOTONIC for its times to meet PHP's.
const PerfSampleFields = "comm,pid,time,period"

// ReadPerfSamples reads `perf script --ns -F comm,pid,time,period` of a cpu-clock
// recording without call graphs: one sample a line, "COMM PID TIME: PERIOD" (a command
// name may hold spaces). It returns the samples taken in [from, to) (nanoseconds of the
// recording's clock; from = to = 0 keeps all), as ReadPerfScript does.
func ReadPerfSamples(r io.Reader, from, to int64) ([]CPUSample, error) {
	var out []CPUSample
	sc := bufio.NewScanner(r)
	n := 1
	for ; sc.Scan(); n++ {
		s, err := perfSampleLine(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("perf script line %d: %w", n, err)
		}
		if from == to || s.At >= from && s.At < to {
			out = append(out, s)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading perf script: %w", err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("perf recorded no sample in the window (%d in all)", n-1)
	}
	return out, nil
}

func perfSampleLine(text string) (CPUSample, error) {
	f := strings.Fields(text) // the last three: PID, "TIME:", PERIOD
	if len(f) < 4 || !strings.HasSuffix(f[len(f)-2], ":") {
		return CPUSample{}, fmt.Errorf("want \"COMM PID TIME: PERIOD\", got %q", clip(text))
	}
	pid, err1 := strconv.Atoi(f[len(f)-3])
	secs, err2 := strconv.ParseFloat(strings.TrimSuffix(f[len(f)-2], ":"), 64)
	w, err3 := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || w <= 0 {
		return CPUSample{}, fmt.Errorf("want \"COMM PID TIME: PERIOD\", got %q", clip(text))
	}
	return CPUSample{PID: pid, Comm: strings.Join(f[:len(f)-3], " "), At: int64(secs * 1e9), Weight: w}, nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
