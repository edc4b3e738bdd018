package procstat

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startShell runs script under sh in its own process group, killed (group and all) when
// the test ends, however it ends.
func startShell(t *testing.T, script string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd
}

// waitFor polls cond until it holds, failing the test after a generous limit.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestParseStatCommandWithSpacesAndParens(t *testing.T) {
	line := []byte("42 (a b) (c)) S 7 42 42 0 -1 4194304 98 0 0 0 250 130 9 1 20 0 1 0 58906 3133440 362 18446744073709551615\n")
	s, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	want := stat{ppid: 7, startTime: 58906, times: Times{
		User: 2500 * time.Millisecond, System: 1300 * time.Millisecond,
		ChildUser: 90 * time.Millisecond, ChildSystem: 10 * time.Millisecond,
	}}
	if s != want {
		t.Fatalf("parseStat = %+v, want %+v", s, want)
	}
	if _, err := parseStat([]byte("42 (x) S 7 42")); err == nil {
		t.Fatal("a truncated line parsed without error")
	}
}

func TestBusyChildAccumulatesCPU(t *testing.T) {
	cmd := startShell(t, "while :; do :; done")
	pid := cmd.Process.Pid
	waitFor(t, "the busy loop to use 200 ms of CPU", func() bool {
		tm, err := ReadTimes(pid)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Own() >= 200*time.Millisecond
	})
	// An idle process in the same state stays near zero.
	idle := startShell(t, "sleep 30")
	time.Sleep(300 * time.Millisecond)
	tm, err := ReadTimes(idle.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if tm.Own() > 100*time.Millisecond {
		t.Fatalf("sleeping process used %v of CPU", tm.Own())
	}
}

func TestReadTimesOfMissingProcess(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTimes(cmd.Process.Pid); !errors.Is(err, ErrNotFound) {
		t.Fatalf("ReadTimes of a reaped process: err = %v, want ErrNotFound", err)
	}
}

func TestDescendantsFindsGrandchildren(t *testing.T) {
	// root sh -> (sh -> sleep), sleep; the "; true" keeps sh from exec'ing its last command.
	cmd := startShell(t, `sh -c "sleep 30; true" & sleep 30; true`)
	root := cmd.Process.Pid
	var kids []int
	waitFor(t, "three descendants", func() bool {
		var err error
		kids, err = Descendants(root)
		if err != nil {
			t.Fatal(err)
		}
		return len(kids) == 3
	})
	// Every descendant's parent chain must lead back to root.
	for _, k := range kids {
		p := k
		for p != root {
			s, err := readStat(p)
			if err != nil {
				t.Fatal(err)
			}
			if s.ppid <= 1 {
				t.Fatalf("descendant %d does not lead back to %d", k, root)
			}
			p = s.ppid
		}
	}
	tree, err := Tree(root, kids[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(tree) != 4 || tree[0] != root {
		t.Fatalf("Tree(root, child) = %v, want root first and 4 distinct processes", tree)
	}
	if slices.Contains(kids, os.Getpid()) {
		t.Fatal("the test process listed as its own child's descendant")
	}
}

func TestSampleCountsGrandchildCPU(t *testing.T) {
	cmd := startShell(t, `sh -c "while :; do :; done; true"; true`)
	root := cmd.Process.Pid
	waitFor(t, "the busy grandchild", func() bool {
		k, err := Descendants(root)
		if err != nil {
			t.Fatal(err)
		}
		return len(k) == 1
	})
	before := time.Now()
	start, err := Take(root)
	if err != nil {
		t.Fatal(err)
	}
	if start.Len() != 2 {
		t.Fatalf("start sample has %d processes, want 2", start.Len())
	}
	var d Delta
	waitFor(t, "200 ms of CPU in the tree", func() bool {
		end, err := Take(root)
		if err != nil {
			t.Fatal(err)
		}
		d = end.Sub(start)
		return d.CPU() >= 200*time.Millisecond
	})
	around := time.Since(before)
	if d.Started != 0 || d.Exited != 0 || d.Lost != 0 {
		t.Fatalf("stable tree reported %s", d)
	}
	// The samples' times lie within the wall time around both, and one busy process
	// cannot use more CPU than that. Not Wall itself: a sample notes its time before it
	// reads the processes, and a loaded machine can hold the reading up. 100 ms is room
	// for clock ticks: each of a process's four times is cut to 10 ms when read.
	if d.Wall > around || d.CPU() > around+100*time.Millisecond {
		t.Fatalf("one busy process used more CPU than the %v of wall time around the samples: %s", around, d)
	}
}

// A child that burns CPU and exits inside the window must still be counted: its time
// reaches the parent's children times when the parent reaps it.
func TestSampleCountsChildThatExited(t *testing.T) {
	// The child spins until the test kills it; the parent waits for it, then sleeps.
	cmd := startShell(t, `sh -c 'while :; do :; done'; sleep 30; true`)
	root := cmd.Process.Pid
	var start *Sample
	var child int
	waitFor(t, "the spinning child", func() bool {
		var err error
		if start, err = Take(root); err != nil {
			t.Fatal(err)
		}
		kids, err := Descendants(root)
		if err != nil {
			t.Fatal(err)
		}
		if start.Len() != 2 || len(kids) != 1 {
			return false
		}
		child = kids[0]
		return true
	})
	// The child's CPU can only have grown since the start sample read it; let it burn
	// 250 ms more, however long the machine takes to give it that, then end it.
	atStart, err := ReadTimes(child)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the child to burn 250 ms of CPU", func() bool {
		now, err := ReadTimes(child)
		if err != nil {
			t.Fatal(err)
		}
		return now.Own()-atStart.Own() >= 250*time.Millisecond
	})
	if err := syscall.Kill(child, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var d Delta
	waitFor(t, "the child to be replaced by sleep", func() bool {
		end, err := Take(root)
		if err != nil {
			t.Fatal(err)
		}
		d = end.Sub(start)
		return d.Exited == 1 && d.Started == 1
	})
	if d.Lost != 0 {
		t.Fatalf("child reaped by a tracked parent counted as lost: %s", d)
	}
	// At least the 250 ms it burnt after the start sample, less the parent's four times
	// each cut to a clock tick when read.
	if d.CPU() < 200*time.Millisecond {
		t.Fatalf("the exited child's CPU is missing: %s", d)
	}
	// Counting only the processes alive at both ends would have missed it: the parent
	// itself did next to nothing.
	rootTimes, err := ReadTimes(root)
	if err != nil {
		t.Fatal(err)
	}
	if rootTimes.Own() >= 100*time.Millisecond {
		t.Fatalf("root itself used %v; the test needs an idle parent", rootTimes.Own())
	}
}

func TestSelfGrowsWithWork(t *testing.T) {
	before, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for i := 0; i < 1<<27; i++ {
		x ^= i * i
	}
	after, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	if after.Own() <= before.Own() {
		t.Fatalf("self CPU did not grow over a busy loop (%v -> %v, x=%d)", before.Own(), after.Own(), x)
	}
}

func TestPeakRSSAndReset(t *testing.T) {
	self := os.Getpid()
	base, err := PeakRSS(self)
	if err != nil {
		t.Fatal(err)
	}
	const size = 128 << 20
	b := make([]byte, size)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	peak, err := PeakRSS(self)
	if err != nil {
		t.Fatal(err)
	}
	if peak < size {
		t.Fatalf("peak RSS %d after touching %d bytes (before: %d)", peak, size, base)
	}
	b = nil
	debug.FreeOSMemory()
	if err := ResetPeakRSS(self); err != nil {
		t.Fatal(err)
	}
	after, err := PeakRSS(self)
	if err != nil {
		t.Fatal(err)
	}
	if after > peak-size/2 {
		t.Fatalf("peak RSS after reset %d, before %d: not reset", after, peak)
	}
	// A sum over processes, vanished ones skipped.
	idle := startShell(t, "sleep 30")
	both, err := PeakRSS(self, idle.Process.Pid, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	if both <= after {
		t.Fatalf("PeakRSS(self, sleep) = %d, not more than self alone (%d)", both, after)
	}
}

// A process whose parent leaves the tree is re-parented outside it; Sub must say so
// rather than pretend its CPU was counted.
func TestSampleReportsLostOrphans(t *testing.T) {
	// The inner sh waits for cat, which waits for the test to open and close a FIFO: the
	// tree stays whole until the test has its start sample, however slow the machine.
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := startShell(t, `sh -c "sleep 30 & cat '`+fifo+`' >/dev/null; true"; sleep 30; true`)
	root := cmd.Process.Pid
	var start *Sample
	waitFor(t, "root, inner sh, its sleep and its cat", func() bool {
		var err error
		if start, err = Take(root); err != nil {
			t.Fatal(err)
		}
		return start.Len() == 4
	})
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // blocks until cat opens it too
	if err != nil {
		t.Fatal(err)
	}
	w.Close() // cat reads the end of the file and exits, and so does the inner sh
	var d Delta
	waitFor(t, "the inner sh to exit and root to start its sleep", func() bool {
		end, err := Take(root)
		if err != nil {
			t.Fatal(err)
		}
		d = end.Sub(start)
		return d.Exited == 3 && d.Started == 1
	})
	// The inner sh was reaped by root (counted); its sleep and cat lost their parent.
	if d.Lost != 2 {
		t.Fatalf("got %s, want 2 of the 3 exited lost", d)
	}
}

// rusageCPU is this process's CPU time (user and system, every thread) by getrusage.
func rusageCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The counters of this very process move with the work it does: CPU time as the kernel
// accounts it elsewhere, and a system call per write.
func TestCountsOfThisProcess(t *testing.T) {
	outer0 := rusageCPU(t)
	before, err := TakeCounts(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.CreateTemp(t.TempDir(), "w")
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		if _, err := f.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	// Spin until this process has used spin of CPU by getrusage's account, however long a
	// loaded machine takes to give it that much.
	const spin = 100 * time.Millisecond
	inner0 := rusageCPU(t)
	inner1 := inner0
	for inner1-inner0 < spin {
		inner1 = rusageCPU(t)
	}
	for range 10 {
		time.Sleep(time.Millisecond) // a thread waits: a voluntary context switch, on whichever thread
	}
	d, err := TakeCounts(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	outer1 := rusageCPU(t)
	delta := d.Sub(before)
	t.Logf("CPU %v by the threads' schedstat, %v spun and %v in all by getrusage", delta.Run, inner1-inner0, outer1-outer0)
	if delta.Writes < 100 {
		t.Errorf("%d write system calls counted for 100 writes", delta.Writes)
	}
	// Two accounts of the same CPU time: the scheduler's per thread, which Counts sums,
	// and getrusage's per process; the spin lies within the two Counts, and they within
	// the outer getrusage pair. Both read a thread on a CPU as of the scheduler's last
	// update of it, at most a tick ago (10 ms at the coarsest HZ, 100): allow three, for
	// the reading thread and one other of this process on each of two CPUs. Without
	// schedstat Counts reads clock ticks, user and system each cut to 10 ms: within that.
	const lag = 30 * time.Millisecond
	if delta.Run < inner1-inner0-lag || delta.Run > outer1-outer0+lag {
		t.Errorf("CPU %v by schedstat; getrusage saw %v spun within the window and %v around it", delta.Run, inner1-inner0, outer1-outer0)
	}
	if delta.Lost != 0 {
		t.Errorf("lost %d processes", delta.Lost)
	}
	if delta.Voluntary < 5 {
		t.Errorf("%d voluntary context switches over 10 sleeps, counted over every thread", delta.Voluntary)
	}
	gone, err := TakeCounts(1 << 30)
	if err != nil || len(gone.procs) != 0 {
		t.Errorf("a PID that does not exist: %v, %d processes", err, len(gone.procs))
	}
}

// A thread that exits between two readings takes its counts with it; the difference is
// taken thread by thread, so it never falls below zero (a sum over threads did, and
// made the database's CPU per request negative in a run). The second reading is the
// first less its busiest thread, as a /proc read after that thread exited would be.
func TestAThreadThatExitsDoesNotMakeADifferenceNegative(t *testing.T) {
	pid := strconv.Itoa(os.Getpid())
	out, err := exec.Command("sh", "-c", DumpScript, "sh", pid).Output()
	if err != nil {
		t.Fatal(err)
	}
	files, err := ReadDump(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	start, err := TakeCountsIn(files, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	busiest, most := "", time.Duration(-1)
	tasks, _ := files.ReadDir("/proc/" + pid + "/task")
	for _, tid := range tasks {
		if run, err := schedRun(files, "/proc/"+pid+"/task/"+tid); err == nil && run > most {
			busiest, most = tid, run
		}
	}
	if most <= 0 {
		t.Skip("no thread with CPU time in schedstat")
	}
	after := Files{}
	for name, b := range files {
		if !strings.HasPrefix(name, "/proc/"+pid+"/task/"+busiest+"/") {
			after[name] = b
		}
	}
	end, err := TakeCountsIn(after, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if d := end.Sub(start); d.Run < 0 || d.Voluntary < 0 || d.Forced < 0 {
		t.Errorf("after thread %s (%v on CPU) exited: %+v, want no negative count", busiest, most, d)
	}
}

// ReadTimes returns the CPU time of process pid (the tests' reading of one process).
func ReadTimes(pid int) (Times, error) {
	s, err := readStat(pid)
	return s.times, err
}

// The machine's busy time is user, nice, system, irq, softirq and steal, not idle or
// iowait, in clock ticks; it only grows.
func TestSystemBusy(t *testing.T) {
	f := Files{"/proc/stat": []byte("cpu  100 5 40 9000 70 3 2 10 0 0\ncpu0 50 2 20 4500 35 1 1 5 0 0\n")}
	got, err := systemBusyIn(f)
	if want := 160 * time.Second / ClockTicks; err != nil || got != want {
		t.Errorf("systemBusyIn = %v, %v; want %v", got, err, want)
	}
	if _, err := systemBusyIn(Files{"/proc/stat": []byte("intr 1 2 3\n")}); err == nil {
		t.Error("a /proc/stat without its cpu line: want an error")
	}
	a, err := SystemBusy()
	if err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < 30*time.Millisecond; {
	}
	if b, err := SystemBusy(); err != nil || b < a {
		t.Errorf("SystemBusy went from %v to %v (%v)", a, b, err)
	}
}
