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

// AnonRSS is pid's resident anonymous memory (RssAnon of /proc/PID/status), bytes: its
// heap and stacks, not the files and shared memory it maps; 0 for a process without
// memory lines (a zombie).
func AnonRSS(pid int) (int64, error) {
	kb, err := statusKB(Local, pid, "RssAnon:")
	return kb * 1024, err
}

// PrivateBytes is the memory pid holds alone: Private_Clean plus Private_Dirty of
// /proc/PID/smaps_rollup (Linux 4.14), the pages no other process maps. For a php-fpm
// child or a resident worker it is what one more of them costs the host: opcache's
// shared memory, the binary's code and what the master wrote before forking count in
// every child's RSS but not here.
func PrivateBytes(fsys FS, pid int) (int64, error) {
	b, err := readProc(fsys, pid, "smaps_rollup")
	if err != nil {
		return 0, err
	}
	var sum int64
	for _, name := range []string{"Private_Clean:", "Private_Dirty:"} {
		v, err := kbLine(b, pid, "smaps_rollup", name)
		if err != nil {
			return 0, err
		}
		sum += v * 1024
	}
	return sum, nil
}

// statusKB reads one "Name:   N kB" line of /proc/PID/status.
func statusKB(fsys FS, pid int, name string) (int64, error) {
	b, err := readProc(fsys, pid, "status")
	if err != nil {
		return 0, err
	}
	return kbLine(b, pid, "status", name)
}

// readProc reads /proc/PID/file; a process that is gone is ErrNotFound.
func readProc(fsys FS, pid int, file string) ([]byte, error) {
	b, err := fsys.ReadFile("/proc/" + strconv.Itoa(pid) + "/" + file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("procstat: process %d: %w", pid, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("procstat: %w", err)
	}
	return b, nil
}

// kbLine reads the value of the "Name:   N kB" line of b, /proc/PID/file's text; 0 when
// there is none (kernel threads and zombies have no memory lines).
func kbLine(b []byte, pid int, file, name string) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.HasPrefix(line, []byte(name)) {
			continue
		}
		f := bytes.Fields(line[len(name):])
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("procstat: /proc/%d/%s: unexpected %q", pid, file, line)
		}
		v, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("procstat: /proc/%d/%s %s: %w", pid, file, name, err)
		}
		return v, nil
	}
	return 0, nil
}
