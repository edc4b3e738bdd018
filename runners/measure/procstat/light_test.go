package procstat

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TakeLight sees this process's CPU, system calls and context switches grow, reads
// another process, and says when there is none.
func TestTakeLight(t *testing.T) {
	a, err := TakeLight(0)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/stat")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 1)
	for range 100 {
		if _, err := f.ReadAt(buf, 0); err != nil {
			t.Fatal(err)
		}
	}
	for x := 0; x < 5e7; x++ { // some CPU
		buf[0] += byte(x)
	}
	for range 5 { // some waits
		time.Sleep(time.Millisecond)
	}
	b, err := TakeLight(0)
	if err != nil {
		t.Fatal(err)
	}
	if d := b.Sub(a); d.CPU <= 0 || d.Syscalls < 100 || d.Voluntary < 1 {
		t.Errorf("after 100 reads, a loop and 5 sleeps: %+v, want CPU > 0, at least 100 system calls and a context switch", d)
	}
	if d := b.Sub(a).Add(b.Sub(a)); d != (Light{2 * (b.CPU - a.CPU), 2 * (b.Syscalls - a.Syscalls), 2 * (b.Voluntary - a.Voluntary)}) {
		t.Errorf("Add: %+v", d)
	}
	if _, err := TakeLight(os.Getppid()); err != nil {
		t.Errorf("TakeLight of another process: %v", err)
	}
	if _, err := TakeLight(1 << 30); !errors.Is(err, ErrNotFound) {
		t.Errorf("TakeLight of no process: %v, want ErrNotFound", err)
	}
}

// A process that exited while the tree was read is skipped, however /proc says so:
// gone, or ESRCH from a file of a process still exiting.
func TestExitedReadsEveryWayAProcessGoes(t *testing.T) {
	for _, err := range []error{ErrNotFound, &os.PathError{Op: "open", Path: "/proc/1/stat", Err: syscall.ENOENT},
		&os.PathError{Op: "read", Path: "/proc/1/io", Err: syscall.ESRCH}} {
		if !exited(err) {
			t.Errorf("exited(%v) = false, want true", err)
		}
	}
	if exited(&os.PathError{Op: "read", Path: "/proc/1/io", Err: syscall.EACCES}) {
		t.Error("exited(EACCES) = true: a refusal is an error, not an exit")
	}
}

// TakeCPUFamily sees what TakeLightTree sees of a parent whose children work: their CPU
// while they live, and the parent's children's times once they have exited and been
// waited for.
func TestTakeCPUFamilyIsTheTreesCPU(t *testing.T) {
	cmd := exec.Command("bash", "-c", `for i in 1 2 3; do (x=0; while [ $x -lt 60000 ]; do x=$((x+1)); done; read) & done; wait; sleep 10`)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	pid := cmd.Process.Pid
	near := func(when string) time.Duration {
		t.Helper()
		family, err := TakeCPUFamily(pid)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := TakeLightTree(pid)
		if err != nil {
			t.Fatal(err)
		}
		if d := family - tree.CPU; d < -30*time.Millisecond || d > 30*time.Millisecond {
			t.Errorf("%s: family %v, tree %v; want the same within a few ticks", when, family, tree.CPU)
		}
		return family
	}
	still(t, pid, 50*time.Millisecond) // the loops end; the children wait on stdin
	alive := near("children alive")
	stdin.Close() // they read EOF and exit; bash waits for them, then sleeps
	still(t, pid, alive-20*time.Millisecond)
	waited := near("children exited and waited for")
	if alive < 50*time.Millisecond || waited < alive-20*time.Millisecond {
		t.Errorf("three children counting to 60000: %v of CPU alive, %v once waited for; want more, and no less after", alive, waited)
	}
}

// still waits until pid's family has used at least least and uses no more: two readings
// 200 ms apart agree.
func still(t *testing.T, pid int, least time.Duration) {
	t.Helper()
	prev := time.Duration(-1)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		c, err := TakeCPUFamily(pid)
		if err != nil {
			t.Fatal(err)
		}
		if c == prev && c >= least {
			return
		}
		prev = c
	}
	t.Fatal("the family's CPU kept growing for 20 s")
}
