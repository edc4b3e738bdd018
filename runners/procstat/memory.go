package procstat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// PeakRSS returns the sum of the peak resident set sizes (VmHWM) of pids, in bytes.
// Processes that no longer exist are skipped: their peak is gone with them.
//
// A sum of peaks over-states the tree's real peak twice over: the processes need not
// peak at the same moment, and pages they share (php-fpm's opcache, the code of a
// binary) count once per process. It is an upper bound, comparable between runs.
func PeakRSS(pids ...int) (int64, error) { return PeakRSSIn(Local, pids...) }

// PeakRSSIn is PeakRSS on the /proc of fsys (another host's, read at once).
func PeakRSSIn(fsys FS, pids ...int) (int64, error) {
	var sum int64
	for _, pid := range pids {
		v, err := statusKB(fsys, pid, "VmHWM:")
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return 0, err
		}
		sum += v * 1024
	}
	return sum, nil
}

// ResetPeakRSS sets each process's peak RSS back to its current RSS (by writing 5 to
// /proc/PID/clear_refs, Linux 4.0 and later), so the next PeakRSS covers one
// repetition rather than the life of the process. Vanished processes are skipped.
func ResetPeakRSS(pids ...int) error {
	for _, pid := range pids {
		err := os.WriteFile("/proc/"+strconv.Itoa(pid)+"/clear_refs", []byte("5"), 0)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("procstat: reset peak RSS of %d: %w", pid, err)
		}
	}
	return nil
}

// statusKB reads one "Name:   N kB" line of /proc/PID/status.
func statusKB(fsys FS, pid int, name string) (int64, error) {
	b, err := fsys.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if errors.Is(err, os.ErrNotExist) {
		return 0, fmt.Errorf("procstat: process %d: %w", pid, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("procstat: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(name)) {
			continue
		}
		f := bytes.Fields(line[len(name):])
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("procstat: /proc/%d/status: unexpected %q", pid, line)
		}
		v, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("procstat: /proc/%d/status %s: %w", pid, name, err)
		}
		return v, nil
	}
	// Kernel threads and zombies have no memory lines.
	return 0, nil
}
