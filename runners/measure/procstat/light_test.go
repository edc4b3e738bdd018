package procstat

import (
	"errors"
	"os"
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
