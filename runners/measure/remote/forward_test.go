package remote_test

import (
	"context"
	"net"
	"os"
	"strings"
	"testing"

	"dbbench/runners/measure/freeport"
	"dbbench/runners/measure/remote"
	"dbbench/runners/measure/sshtest"
)

// A port picked here and taken by another process before ssh binds it: the forward
// fails on it, Forward picks another, and the stranger's listener keeps its port and
// gets none of the forwarded traffic.
func TestForwardRetriesALostPort(t *testing.T) {
	srv := sshtest.Start(t)
	h, err := remote.Connect(context.Background(), srv.URL, remote.Options{Key: srv.Key, KnownHosts: srv.KnownHosts})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	py := "/usr/bin/python3"
	if _, err := os.Stat(py); err != nil {
		t.Skip("no python3 for a small server there")
	}
	admin, err := h.FreeLoopback(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, port, _ := strings.Cut(admin, ":")
	p, err := h.Start([]string{py, "-m", "http.server", "--bind", "127.0.0.1", port}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	stranger, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stranger.Close()
	taken := stranger.Addr().String()
	picks := 0
	defer remote.SetPickPort(func() (string, error) {
		picks++
		if picks == 1 {
			return taken, nil // the race lost: another process listens there already
		}
		return freeport.Addr()
	})()
	here, stop, err := h.Forward(admin)
	if err != nil {
		t.Fatalf("Forward after a lost port: %v", err)
	}
	defer stop()
	if here == taken || picks != 2 {
		t.Fatalf("forwarded on %s after %d picks; the stranger holds %s", here, picks, taken)
	}
	if err := getThrough(here); err != nil {
		t.Fatal(err)
	}
	// Every pick taken: the error says why, after forwardTries picks.
	picks = 0
	defer remote.SetPickPort(func() (string, error) { picks++; return taken, nil })()
	if _, _, err := h.Forward(admin); err == nil || picks != remote.ForwardTries {
		t.Errorf("every port taken: %v after %d picks", err, picks)
	}
}
