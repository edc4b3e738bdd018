package procstat

import (
	"errors"
	"os"
	"testing"
)

// Private memory is Private_Clean plus Private_Dirty of smaps_rollup, in bytes; the
// shared pages a forked child maps with its parent are not in it.
func TestPrivateBytes(t *testing.T) {
	fsys := Files{"/proc/42/smaps_rollup": []byte("564713582000-7ffc42399000 ---p 00000000 00:00 0  [rollup]\n" +
		"Rss:                1716 kB\nPss:                 377 kB\nShared_Clean:       1520 kB\n" +
		"Private_Clean:        84 kB\nPrivate_Dirty:       112 kB\n")}
	got, err := PrivateBytes(fsys, 42)
	if err != nil || got != (84+112)*1024 {
		t.Fatalf("PrivateBytes = %d, %v; want %d", got, err, (84+112)*1024)
	}
	if _, err := PrivateBytes(fsys, 43); !errors.Is(err, ErrNotFound) {
		t.Errorf("a process that is gone: %v, want ErrNotFound", err)
	}
	bad := Files{"/proc/42/smaps_rollup": []byte("Private_Clean: many kB\n")}
	if _, err := PrivateBytes(bad, 42); err == nil {
		t.Error("a line that does not parse gave no error")
	}
	// This process: its heap is its own, and smaller than its whole resident set.
	own, err := PrivateBytes(Local, os.Getpid())
	rss, err2 := statusKB(Local, os.Getpid(), "VmRSS:")
	if err != nil || err2 != nil || own <= 0 || own > rss*1024 {
		t.Errorf("this process: private %d B, RSS %d kB (%v, %v)", own, rss, err, err2)
	}
}

// This process's anonymous memory (its Go heap, at least) is above 0 and within its RSS.
func TestAnonRSS(t *testing.T) {
	anon, err := AnonRSS(os.Getpid())
	rss, err2 := statusKB(Local, os.Getpid(), "VmRSS:")
	if err != nil || err2 != nil || anon <= 0 || anon > rss*1024 {
		t.Errorf("AnonRSS = %d B, RSS %d kB (%v, %v): want above 0 and within the RSS", anon, rss, err, err2)
	}
	if _, err := AnonRSS(1 << 30); !errors.Is(err, ErrNotFound) {
		t.Errorf("a process that is gone: %v, want ErrNotFound", err)
	}
}
