// Package procstat reads the CPU time and peak memory of processes from /proc, so the
// runner can report CPU seconds per request for the target (every one of its processes),
// the database and the load generator itself.
//
// Resolution: /proc/PID/stat counts in clock ticks (USER_HZ, 100 per second on Linux), so
// each process read is truncated to 10 ms. A repetition of a few seconds that burns a
// CPU-second or more is accurate to about 1% per process read. The generator's own time
// comes from getrusage, which is exact to the microsecond.
package procstat

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"
)

// ClockTicks is USER_HZ, the unit of the times in /proc/PID/stat. The kernel exports
// times in this unit on every architecture (sysconf(_SC_CLK_TCK) returns it); it is 100.
const ClockTicks = 100

// Times is the CPU time of one process as /proc/PID/stat reports it.
type Times struct {
	User, System time.Duration // the process itself, all its threads
	// ChildUser and ChildSystem hold the time of its children that exited and were
	// reaped (waited for) by it; the kernel folds a child's total into its parent then.
	ChildUser, ChildSystem time.Duration
}

// Own is the CPU time the process itself used.
func (t Times) Own() time.Duration { return t.User + t.System }

// Total is the process's own time plus that of its reaped children.
func (t Times) Total() time.Duration { return t.Own() + t.ChildUser + t.ChildSystem }

// stat holds the fields of /proc/PID/stat that this package uses.
type stat struct {
	ppid      int
	startTime uint64 // clock ticks after boot: tells a process from a later one with its PID
	times     Times
}

// ErrNotFound says the process does not exist (or exited).
var ErrNotFound = errors.New("no such process")

func readStat(pid int) (stat, error) { return readStatIn(Local, pid) }

func readStatIn(fsys FS, pid int) (stat, error) {
	b, err := fsys.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			return stat{}, fmt.Errorf("procstat: process %d: %w", pid, ErrNotFound)
		}
		return stat{}, fmt.Errorf("procstat: %w", err)
	}
	s, err := parseStat(b)
	if err != nil {
		return stat{}, fmt.Errorf("procstat: /proc/%d/stat: %w", pid, err)
	}
	return s, nil
}

// parseStat reads a /proc/PID/stat line. The command name (field 2) may hold spaces and
// parentheses, so fields are counted from the last ')'.
func parseStat(b []byte) (stat, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return stat{}, fmt.Errorf("no ')' in %q", b)
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state); utime is field 14, so f[11].
	if len(f) < 20 {
		return stat{}, fmt.Errorf("%d fields after the command name, want at least 20", len(f))
	}
	var n [6]uint64
	for k, idx := range [6]int{1, 11, 12, 13, 14, 19} { // ppid utime stime cutime cstime starttime
		v, err := strconv.ParseUint(string(f[idx]), 10, 64)
		if err != nil {
			return stat{}, fmt.Errorf("field %d: %w", idx+3, err)
		}
		n[k] = v
	}
	return stat{
		ppid:      int(n[0]),
		startTime: n[5],
		times: Times{
			User: ticks(n[1]), System: ticks(n[2]),
			ChildUser: ticks(n[3]), ChildSystem: ticks(n[4]),
		},
	}, nil
}

func ticks(n uint64) time.Duration { return time.Duration(n) * (time.Second / ClockTicks) }

// Self returns the CPU time of the calling process (all threads) from getrusage, exact
// to the microsecond. Only this process's own time: reaped children are not included.
func Self() (Times, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return Times{}, fmt.Errorf("procstat: getrusage: %w", err)
	}
	return Times{
		User:   time.Duration(ru.Utime.Nano()),
		System: time.Duration(ru.Stime.Nano()),
	}, nil
}

// Descendants lists the processes below pid (children, grandchildren, ...), found by
// scanning the parent PID of every process in /proc. The order is breadth first.
func Descendants(pid int) ([]int, error) {
	children, err := childrenByPID()
	if err != nil {
		return nil, err
	}
	return below(children, pid), nil
}

// Tree returns the roots followed by all their descendants, each PID once.
func Tree(roots ...int) ([]int, error) {
	children, err := childrenByPID()
	if err != nil {
		return nil, err
	}
	seen := make(map[int]bool)
	var out []int
	for _, r := range roots {
		for _, p := range append([]int{r}, below(children, r)...) {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

func below(children map[int][]int, pid int) []int {
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		kids := children[queue[0]]
		queue = queue[1:]
		out = append(out, kids...)
		queue = append(queue, kids...)
	}
	return out
}

// childrenByPID maps every live process to its children, from the parent PID in each
// /proc/PID/stat (/proc/PID/task/*/children needs a kernel option; this does not).
func childrenByPID() (map[int][]int, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, fmt.Errorf("procstat: %w", err)
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("procstat: list /proc: %w", err)
	}
	children := make(map[int][]int, len(names))
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue // not a process directory
		}
		s, err := readStat(pid)
		if err != nil {
			continue // exited while we listed
		}
		children[s.ppid] = append(children[s.ppid], pid)
	}
	return children, nil
}

// SystemBusy is the CPU time the machine's cores have spent on anything but idling or
// waiting for I/O since boot, from /proc/stat's cpu line: user, nice, system, irq,
// softirq and steal (time a hypervisor gave another guest). Its difference over a
// slice, less the measured processes' own, is what other processes took (run's
// outside CPU).
func SystemBusy() (time.Duration, error) { return systemBusyIn(Local) }

func systemBusyIn(fsys FS) (time.Duration, error) {
	b, err := fsys.ReadFile("/proc/stat")
	if err != nil {
		return 0, fmt.Errorf("procstat: %w", err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := bytes.Fields(line)
	if len(f) < 9 || string(f[0]) != "cpu" {
		return 0, fmt.Errorf("procstat: /proc/stat: first line %q, want cpu and 8 counters", line)
	}
	var busy uint64
	for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system [idle iowait] irq softirq steal
		n, err := strconv.ParseUint(string(f[i]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("procstat: /proc/stat: %w", err)
		}
		busy += n
	}
	return ticks(busy), nil
}
