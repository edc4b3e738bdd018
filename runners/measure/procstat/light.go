package procstat

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Light is what one process did so far, read cheaply enough to read at every turn of a
// block (ten times a second) even for a database with hundreds of threads: two files,
// /proc/PID/stat and /proc/PID/io, whatever the number of threads. CPU time is of all
// its threads, living and exited, but in whole clock ticks (10 ms); system calls are
// those of TakeCounts. Context switches are known for this process only (getrusage
// counts them over all its threads); another's need TakeCounts, which reads every
// thread.
type Light struct {
	CPU       time.Duration
	Syscalls  int64
	Voluntary int64 // this process only
}

// TakeLight reads pid's Light counters; pid 0 means this process, whose CPU and context
// switches come from getrusage, CPU to the microsecond.
func TakeLight(pid int) (Light, error) {
	var l Light
	dir := "/proc/self"
	if pid == 0 {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			return l, fmt.Errorf("procstat: getrusage: %w", err)
		}
		l.CPU = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		l.Voluntary = ru.Nvcsw
	} else {
		st, err := readStat(pid)
		if err != nil {
			return l, err
		}
		l.CPU, dir = st.times.Own(), "/proc/"+strconv.Itoa(pid)
	}
	io, err := os.ReadFile(dir + "/io")
	if err != nil {
		return l, err
	}
	l.Syscalls = field(io, "syscr:") + field(io, "syscw:")
	return l, nil
}

// Sub is what happened from start to l.
func (l Light) Sub(start Light) Light {
	return Light{CPU: l.CPU - start.CPU, Syscalls: l.Syscalls - start.Syscalls, Voluntary: l.Voluntary - start.Voluntary}
}

// Add is what l and m did together (two windows of one process).
func (l Light) Add(m Light) Light {
	return Light{CPU: l.CPU + m.CPU, Syscalls: l.Syscalls + m.Syscalls, Voluntary: l.Voluntary + m.Voluntary}
}

// exited says err is a process's having exited since it was listed: gone (ENOENT), or
// still exiting, when reading its io file answers ESRCH (seen on a PostgreSQL backend
// closing as connectcost read the tree: "read /proc/PID/io: no such process"); its
// CPU then reaches its parent's children's times.
func exited(err error) bool {
	return errors.Is(err, ErrNotFound) || errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// TakeLightTree is TakeLight of a process and every process below it, with the CPU of
// the children it has waited for (its children's times): a server of a process per
// connection (PostgreSQL), whose backends that exited between two readings still count.
func TakeLightTree(pid int) (Light, error) {
	pids, err := Tree(pid)
	if err != nil {
		return Light{}, err
	}
	var sum Light
	for _, p := range pids {
		l, err := TakeLight(p)
		if exited(err) {
			continue
		}
		if err != nil {
			return Light{}, err
		}
		sum = sum.Add(l)
	}
	st, err := readStat(pid)
	if err != nil {
		return Light{}, err
	}
	sum.CPU += st.times.ChildUser + st.times.ChildSystem
	return sum, nil
}

// TakeCPUFamily is the CPU time of pid, of each of its children alive now and of the
// children it has waited for: the whole of a server whose every process is the main
// one's child (PostgreSQL's postmaster and its backends). It lists the children from
// /proc/PID/task/*/children, one small file, where TakeLightTree reads every process's
// stat to find them, and it reads no io file: a reading of a postmaster with a thousand
// backends costs a thousand stat reads instead of three thousand files, at every turn.
// Without the children files (a kernel without CONFIG_PROC_CHILDREN) it is
// TakeLightTree's CPU.
func TakeCPUFamily(pid int) (time.Duration, error) {
	kids, err := childrenOf(pid)
	if errors.Is(err, os.ErrNotExist) {
		l, err := TakeLightTree(pid)
		return l.CPU, err
	}
	if err != nil {
		return 0, err
	}
	st, err := readStat(pid)
	if err != nil {
		return 0, err
	}
	cpu := st.times.Own() + st.times.ChildUser + st.times.ChildSystem
	for _, k := range kids {
		s, err := readStat(k)
		if exited(err) {
			continue // its CPU reaches pid's children's times once pid waits for it
		}
		if err != nil {
			return 0, err
		}
		cpu += s.times.Own()
	}
	return cpu, nil
}

// childrenOf lists pid's children from the children file of each of its threads.
func childrenOf(pid int) ([]int, error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("procstat: %w", err)
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if err != nil {
			if errors.Is(err, os.ErrNotExist) && len(out) == 0 {
				return nil, err // no children files: the kernel lacks them
			}
			continue // the thread ended
		}
		for _, f := range strings.Fields(string(b)) {
			if k, err := strconv.Atoi(f); err == nil {
				out = append(out, k)
			}
		}
	}
	return out, nil
}
