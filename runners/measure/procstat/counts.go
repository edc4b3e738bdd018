package procstat

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"strconv"
	"time"
)

// Counts are counters of a process tree that resolve finer than clock ticks or do not
// depend on the machine's speed: CPU time to the nanosecond (the scheduler's own
// account of each thread, /proc/PID/task/TID/schedstat), read and write system calls
// (/proc/PID/io syscr and syscw: the read(2) and write(2) family, which sockets read
// with recv(2) and written with send(2), as mariadbd does, do not reach) and context
// switches (each thread's /proc/PID/task/TID/status). Take one before and one after a
// measured window; end.Sub(start) is what the tree did in between.
type Counts struct {
	At    time.Time
	procs map[procKey]procCounts
}

type procCounts struct {
	reads, writes int64 // syscr, syscw: the whole process, exited threads included
	// threads by TID: a thread that exits takes its counts with it, so a difference is
	// taken thread by thread (a sum over threads could fall); ticks, when the kernel has
	// no schedstat, is the process's own CPU in clock ticks, exited threads included.
	threads map[string]threadCounts
	ticks   time.Duration
	sched   bool
}

type threadCounts struct {
	run              time.Duration // on CPU (schedstat)
	voluntary, other int64         // context switches: waits, and preemptions
}

// since is what t did after s, the same thread earlier; a TID that was reused (its
// counts smaller than before) counts as a new thread.
func (t threadCounts) since(s threadCounts) threadCounts {
	if t.run < s.run || t.voluntary < s.voluntary || t.other < s.other {
		return t
	}
	return threadCounts{t.run - s.run, t.voluntary - s.voluntary, t.other - s.other}
}

// CountsDelta is what a tree did between two Counts.
type CountsDelta struct {
	Run               time.Duration
	Reads, Writes     int64
	Voluntary, Forced int64 // context switches
	// Lost counts processes that exited in between: what they did after the first
	// sample is missing (threads that exit lose their schedstat the same way; the
	// targets' processes and threads live as long as the target).
	Lost int
}

// Syscalls is reads plus writes.
func (d CountsDelta) Syscalls() int64 { return d.Reads + d.Writes }

// TakeCounts reads the counters of pids (no descendants are added: pass a Tree). A
// process that no longer exists is skipped.
func TakeCounts(pids ...int) (*Counts, error) { return TakeCountsIn(Local, pids...) }

// TakeCountsIn is TakeCounts on the /proc of fsys (another host's, read at once).
func TakeCountsIn(fsys FS, pids ...int) (*Counts, error) {
	c := &Counts{At: time.Now(), procs: make(map[procKey]procCounts, len(pids))}
	for _, pid := range pids {
		st, err := readStatIn(fsys, pid)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		pc, err := readCounts(fsys, pid, st)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		c.procs[procKey{pid, st.startTime}] = pc
	}
	return c, nil
}

// Sub returns what the tree did from start to c. A process that started in between
// counts whole; one that exited is Lost.
func (c *Counts) Sub(start *Counts) CountsDelta {
	var d CountsDelta
	for k, end := range c.procs {
		s := start.procs[k] // zero for a process that started in between
		d.Reads += end.reads - s.reads
		d.Writes += end.writes - s.writes
		for tid, t := range end.threads { // a thread that exited in between adds nothing
			t = t.since(s.threads[tid])
			d.Run += t.run
			d.Voluntary += t.voluntary
			d.Forced += t.other
		}
		if !end.sched {
			d.Run += end.ticks - s.ticks
		}
	}
	for k := range start.procs {
		if _, ok := c.procs[k]; !ok {
			d.Lost++
		}
	}
	return d
}

func readCounts(fsys FS, pid int, st stat) (procCounts, error) {
	dir := "/proc/" + strconv.Itoa(pid)
	var pc procCounts
	// /proc/PID/io covers the whole process; status and schedstat one thread each.
	io, err := fsys.ReadFile(dir + "/io")
	if err != nil {
		return pc, err
	}
	pc.reads, pc.writes = field(io, "syscr:"), field(io, "syscw:")
	tasks, err := fsys.ReadDir(dir + "/task")
	if err != nil || len(tasks) == 0 {
		return pc, os.ErrNotExist
	}
	pc.threads, pc.sched = make(map[string]threadCounts, len(tasks)), true
	for _, name := range tasks {
		t := dir + "/task/" + name
		status, err := fsys.ReadFile(t + "/status")
		if err != nil {
			continue // a thread that exited while we read
		}
		tc := threadCounts{voluntary: field(status, "voluntary_ctxt_switches:"), other: field(status, "nonvoluntary_ctxt_switches:")}
		if tc.run, err = schedRun(fsys, t); err != nil {
			pc.sched = false
		}
		pc.threads[name] = tc
	}
	if !pc.sched { // no schedstat in this kernel: clock ticks of the whole process
		pc.ticks = st.times.Own()
		for name, tc := range pc.threads {
			tc.run = 0
			pc.threads[name] = tc
		}
	}
	return pc, nil
}

// schedRun is the first field of a thread's schedstat: nanoseconds on a CPU.
func schedRun(fsys FS, task string) (time.Duration, error) {
	b, err := fsys.ReadFile(task + "/schedstat")
	if err != nil {
		return 0, err
	}
	f := bytes.Fields(b)
	if len(f) == 0 {
		return 0, errors.New("procstat: empty schedstat")
	}
	n, err := strconv.ParseInt(string(f[0]), 10, 64)
	return time.Duration(n), err
}

// field reads the integer after name ("syscr:") on its line of a /proc file.
func field(b []byte, name string) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte(name)); ok {
			n, _ := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
			return n
		}
	}
	return 0
}
