package remote_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/remote"
	"dbbench/runners/measure/sshtest"
)

// A host over the multiplexed connection: a process started there has a PID there,
// its /proc reads, a loopback port of its forwards here, and Close leaves nothing
// running and no scratch directory.
func TestHost(t *testing.T) {
	srv := sshtest.Start(t)
	ctx := context.Background()
	// The scratch directory of a runner of this host that is gone: swept at connect.
	stale, err := os.MkdirTemp(srv.Tmp, "dbbench-app-")
	if err != nil {
		t.Fatal(err)
	}
	name, _ := os.Hostname()
	os.WriteFile(stale+"/owner", []byte(name+" 999999999\n"), 0o600)
	h, err := remote.Connect(ctx, srv.URL, remote.Options{Key: srv.Key, KnownHosts: srv.KnownHosts})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale scratch directory %s is still there", stale)
	}
	if h.Addr != srv.Topo.App.Addr || h.Self != srv.Topo.Load.Addr {
		t.Errorf("addresses: host %s, self %s", h.Addr, h.Self)
	}
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no python3 for a small server there")
	}
	admin, err := h.FreeLoopback(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(admin, ":")
	var out strings.Builder
	p, err := h.Start([]string{py, "-m", "http.server", "--bind", "127.0.0.1", port}, &out)
	if err != nil {
		t.Fatal(err)
	}
	here, stop, err := h.Forward(admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := getThrough(here); err != nil {
		t.Fatalf("%v; it said: %s", err, out.String())
	}
	stop()
	fsys, err := h.ProcFS(ctx, []int{p.PID})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := procstat.TakeCountsIn(fsys, p.PID); err != nil || c == nil {
		t.Fatalf("counts there: %v", err)
	}
	if rss, err := procstat.PeakRSSIn(fsys, p.PID); err != nil || rss <= 0 {
		t.Fatalf("peak RSS there: %d %v", rss, err)
	}
	if killed := p.Stop(); killed {
		t.Error("the process needed SIGKILL")
	}
	if syscall.Kill(p.PID, 0) != syscall.ESRCH { // the same machine: its PID is ours to check
		t.Errorf("pid %d still runs after Stop", p.PID)
	}
	scratch := h.Scratch
	if filepath.Dir(scratch) != srv.Tmp { // where tests that count what a run left look
		t.Errorf("scratch %s is not in the sessions' TMPDIR %s", scratch, srv.Tmp)
	}
	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(scratch); !os.IsNotExist(err) {
		t.Errorf("scratch %s left: %v", scratch, err)
	}
}

// An unknown host and a refused key are refused in one line that says what to do.
func TestRefusals(t *testing.T) {
	srv := sshtest.Start(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // where Connect makes its control directory
	// A known_hosts that holds another key for the host: as after a reinstall, or a
	// man in the middle.
	pub, err := os.ReadFile(srv.WrongKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(pub))
	changed := filepath.Join(tmp, "changed_hosts")
	os.WriteFile(changed, []byte("["+srv.Topo.App.Addr+"]:2222 "+f[0]+" "+f[1]+"\n"), 0o600)
	for _, c := range []struct {
		o    remote.Options
		want error
		says string
	}{
		{remote.Options{Key: srv.Key, KnownHosts: srv.Unknown}, remote.ErrHostKey, "ssh-keyscan -p 2222"},
		{remote.Options{Key: srv.Key, KnownHosts: changed}, remote.ErrHostKey, "ssh-keygen -R"},
		{remote.Options{Key: srv.WrongKey, KnownHosts: srv.KnownHosts}, remote.ErrAuth, "authorized_keys"},
	} {
		_, err := remote.Connect(context.Background(), srv.URL, c.o)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v, want %v saying %q on one line", c.o, err, c.want, c.says)
		}
		t.Log(err)
		if left, _ := filepath.Glob(filepath.Join(tmp, "dbbench-ssh-*")); len(left) > 0 {
			t.Errorf("a refused connection left %v", left)
		}
	}
}

// A host that drops: the connection says so, what ran there stops on its own, and the
// scratch directory with its DSN file is removed there.
func TestHostDrops(t *testing.T) {
	srv := sshtest.Start(t)
	h, err := remote.Connect(context.Background(), srv.URL, remote.Options{Key: srv.Key, KnownHosts: srv.KnownHosts})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	p, err := h.Start([]string{"sleep", "300"}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Put(context.Background(), "dsn-1", []byte("u:Sesame4711@tcp(127.0.0.1:3306)/dbbench\n")); err != nil {
		t.Fatal(err)
	}
	srv.Kill()
	dropped := time.Now()
	select {
	case <-p.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the session outlived the host's sshd")
	}
	for deadline := time.Now().Add(20 * time.Second); h.Alive() == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the connection still says it is up")
		}
	}
	t.Logf("after the drop: %v", h.Alive())
	// The host removes the scratch directory, DSN file and all, when the connection
	// goes: no next run is needed.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(h.Scratch); os.IsNotExist(err) {
			t.Logf("scratch gone %v after the drop", time.Since(dropped).Round(time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			os.RemoveAll(h.Scratch)
			t.Fatalf("scratch %s still there 20 s after the drop", h.Scratch)
		}
	}
	for deadline := time.Now().Add(20 * time.Second); syscall.Kill(p.PID, 0) != syscall.ESRCH; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d there still runs after the drop", p.PID)
		}
	}
}

// getThrough GETs / at here (a forward to a server just started there) until it
// answers, for 10 s; an error says why it never answered 200.
func getThrough(here string) error {
	var err error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		var resp *http.Response
		if resp, err = http.Get("http://" + here + "/"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
			err = fmt.Errorf("status %d", resp.StatusCode)
		}
	}
	return fmt.Errorf("GET through the forward: %w", err)
}
