package profile

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// A sample whose leaf is in the kernel, under the Go frame that made the system call.
const perfSample = `100.000000:    1000000 cpu-clock:
	ffffffff81ff85a6 tcp_sendmsg
	ffffffff81000130 entry_SYSCALL_64_after_hwframe
	97ae internal/runtime/syscall/linux.Syscall6
	2a3668 github.com/go-sql-driver/mysql.(*mysqlConn).writePacket
	8ae61 runtime.goexit.abi0

100.001000:    1000000 cpu-clock:
	4abc encoding/json.(*encodeState).marshal
	8ae61 runtime.goexit.abi0

100.003000:    2000000 cpu-clock:
	77 [unknown]

`

func TestReadPerfScriptStacksRootFirstKernelMarked(t *testing.T) {
	p, err := ReadPerfScript(strings.NewReader(perfSample), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Unit != "nanoseconds" || p.Total() != 4_000_000 {
		t.Errorf("unit %q total %d: want nanoseconds, 4000000", p.Unit, p.Total())
	}
	// A window keeps the samples taken in it: the first two.
	w, err := ReadPerfScript(strings.NewReader(perfSample), 100_000_000_000, 100_002_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if w.Total() != 2_000_000 {
		t.Errorf("window [100 s, 100.002 s): total %d, want the first two samples' 2000000", w.Total())
	}
	want := []string{"runtime.goexit.abi0", "github.com/go-sql-driver/mysql.(*mysqlConn).writePacket",
		"internal/runtime/syscall/linux.Syscall6", "entry_SYSCALL_64_after_hwframe_[k]", "tcp_sendmsg_[k]"}
	if !slices.ContainsFunc(p.Stacks, func(s Stack) bool { return slices.Equal(s.Frames, want) }) {
		t.Errorf("stacks %v: want one %v", p.Stacks, want)
	}
	if !slices.ContainsFunc(p.Stacks, func(s Stack) bool { return slices.Equal(s.Frames, []string{"0x77"}) && s.Weight == 2_000_000 }) {
		t.Errorf("stacks %v: want the unknown frame named by its address", p.Stacks)
	}
}

func TestPerfKernelTimeGoesToTheCallersComponent(t *testing.T) {
	p, err := ReadPerfScript(strings.NewReader(perfSample), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Fold(p, Go)
	if err != nil {
		t.Fatal(err)
	}
	if f.Weights[Syscall] != 1_000_000 || f.Weights[JSON] != 1_000_000 || f.Weights[Other] != 2_000_000 {
		t.Errorf("weights %v: want 1 ms syscalls & network, 1 ms JSON, 2 ms other", f.Weights)
	}
}

func TestReadPerfScriptRejectsWhatIsNotPerfScript(t *testing.T) {
	for _, in := range []string{"", "hello\n", "100.0: x\n\tabc f\n", "100.0: 1000\n\n"} {
		if _, err := ReadPerfScript(strings.NewReader(in), 0, 0); err == nil {
			t.Errorf("%q: want an error", in)
		}
	}
}

// A recording of a Go HTTP server over loopback, cut to 40 samples.
func TestReadPerfScriptReadsARealRecording(t *testing.T) {
	b, err := os.ReadFile("testdata/perf-script.txt")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ReadPerfScript(strings.NewReader(string(b)), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Every sample of this recording is one period of 997 Hz.
	if samples := strings.Count(string(b), "\n\n"); p.Total() != int64(samples)*1003009 {
		t.Errorf("total %d: want %d samples of 1003009 ns", p.Total(), samples)
	}
	var kernel, user int
	for _, s := range p.Stacks {
		for _, f := range s.Frames {
			if strings.HasSuffix(f, KernelSuffix) {
				kernel++
			} else {
				user++
			}
		}
	}
	if kernel == 0 || user == 0 {
		t.Errorf("%d kernel and %d user frames: want both", kernel, user)
	}
}
