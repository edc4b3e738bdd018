package procstat

import (
	"errors"
	"os"
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
