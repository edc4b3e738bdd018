package chaos

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"
)

// 8. The disk fills mid-run: the run fails with one line that says how many
// repetitions the kept results.json holds, and it holds exactly that many, whole. The
// run directory is a small tmpfs (root mounts it), so the run writes until it cannot.
func TestDiskFull(t *testing.T) {
	tmp := newTmp(t)
	disk := filepath.Join(tmp, "disk")
	os.Mkdir(disk, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", disk).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v: %s", err, out)
	}
	defer exec.Command("umount", "-l", disk).Run()
	out := filepath.Join(disk, "run")
	p := dbbench(t, tmp, runArgs(out, goRaw+"|"+phpRaw, "--reps", "6")...)
	code := p.wait(180 * time.Second)
	line := p.oneErrorLine(`no space left on device|results.json holds|slices measured|slices were measured`)
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, p.errText())
	}
	res, reps := written(t, out)
	if res == nil {
		t.Fatalf("no results.json that parses after the disk filled:\n%s", line)
	}
	var said int
	if m := regexp.MustCompile(`holds (\d+) of them|the (\d+) slices measured are kept`).FindStringSubmatch(line); m != nil {
		said, _ = strconv.Atoi(m[1] + m[2])
	} else {
		t.Fatalf("the error line does not say how many slices are kept: %q", line)
	}
	if said != reps {
		t.Errorf("the line says %d slices are kept, results.json holds %d: %q", said, reps, line)
	}
	exec.Command("umount", disk).Run()
	table.Add(Row{"disk full", "the run directory on a 64 KiB tmpfs", fmt.Sprintf("exit %d: %q", code, tail(cause(line), 90)),
		leftovers(t, tmp, nil), fmt.Sprintf("results.json parses, %d reps, as the line says", reps)})
}
