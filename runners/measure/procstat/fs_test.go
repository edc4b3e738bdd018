package procstat

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// What DumpScript prints of a process, read back, gives the counts and the peak RSS
// that this host's /proc gives (within what the process did in between).
func TestDumpReadsAsLocalProc(t *testing.T) {
	pid := os.Getpid()
	out, err := exec.Command("sh", "-c", DumpScript, "sh", strconv.Itoa(pid), "999999999").Output()
	if err != nil {
		t.Fatal(err)
	}
	files, err := ReadDump(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	remote, err := TakeCountsIn(files, pid, 999999999)
	if err != nil {
		t.Fatal(err)
	}
	local, err := TakeCounts(pid)
	if err != nil {
		t.Fatal(err)
	}
	if len(remote.procs) != 1 {
		t.Fatalf("%d processes in the dump's counts, want 1 (the other is gone)", len(remote.procs))
	}
	d := local.Sub(remote)
	if d.Lost != 0 || d.Run < 0 || d.Voluntary < 0 || d.Reads < 0 {
		t.Errorf("local minus dumped counts = %+v: the dump is not the same process's counts", d)
	}
	tasks, err := files.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil || len(tasks) < 2 {
		t.Errorf("threads in the dump: %v (%v)", tasks, err)
	}
	rss, err := PeakRSSIn(files, pid)
	if l, _ := PeakRSS(pid); err != nil || rss <= 0 || rss > l {
		t.Errorf("peak RSS from the dump %d (%v), here %d", rss, err, l)
	}
	if _, err := ReadDump(bytes.NewReader([]byte("garbage\n"))); err == nil {
		t.Error("a dump without a header line was read")
	}
}
