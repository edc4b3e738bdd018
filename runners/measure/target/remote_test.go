package target

import (
	"context"
	"net/url"
	"syscall"
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/remote"
	"dbbench/runners/measure/sshtest"
)

// A Go target on a host reached over SSH: it serves on the host's address, what the
// runner reads of it (its counters through /proc there, its runtime through the
// forwarded admin listener) reads, and Stop leaves it not running. A PHP target is
// refused there.
func TestGoOnARemoteHost(t *testing.T) {
	srv := sshtest.Start(t)
	h, err := remote.Connect(context.Background(), srv.URL, remote.Options{Key: srv.Key, KnownHosts: srv.KnownHosts})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	o := Options{Remote: h, BinDir: goBinDir(t), RepoRoot: phpRepoRoot, Log: testLog{t}}
	tg, err := Start(context.Background(), specOf(t, goVariant("hello", "none", "none", 2)), o)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := url.Parse(tg.URL); u.Hostname() != h.Addr {
		t.Errorf("URL %s is not on the host's address %s", tg.URL, h.Addr)
	}
	if r := get(t, tg.URL+"/hello"); r.status != 200 {
		t.Errorf("GET /hello = %d", r.status)
	}
	pids := tg.PIDs()
	if c, err := tg.Counts(pids); err != nil || c == nil {
		t.Errorf("counts there: %v", err)
	}
	if rss, err := tg.PeakRSS(pids); err != nil || rss <= 0 {
		t.Errorf("peak RSS there: %d, %v", rss, err)
	}
	if err := tg.ResetPeakRSS(pids); err != nil {
		t.Errorf("reset peak RSS there: %v", err)
	}
	if _, err := tg.Runtime(context.Background()); err != nil {
		t.Errorf("runtime through the forward: %v", err)
	}
	client.CloseIdleConnections()
	if err := tg.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	for _, pid := range pids { // the host is this machine: its PIDs are ours to check
		if syscall.Kill(pid, 0) != syscall.ESRCH {
			t.Errorf("gotarget pid %d still runs there", pid)
		}
	}
	php := matrix.Variant{Lang: "php", Server: "fpm", Layer: "hello", Stmt: "none", Conn: "none", Pool: 1}
	if _, err := Start(context.Background(), specOf(t, php), o); err == nil {
		t.Error("a PHP target started over SSH")
	}
}
