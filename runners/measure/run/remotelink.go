package run

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"dbbench/runners/measure/remote"
	"dbbench/runners/measure/target"
	"dbbench/runners/measure/topology"
	"dbbench/runners/results"
)

// measureRemoteLink is measureLink for an app on another machine: the server's ping
// from there (gotarget --ping, run there) direct to the database and on the targets'
// path, the same from the runner, and a TCP handshake from the runner to the app's host.
func (r *runner) measureRemoteLink(ctx context.Context, direct, path string) (*results.Link, []*results.RoleLink, error) {
	h := r.topo.Remote
	bin, err := h.Copy(ctx, filepath.Join(r.o.BinDir, target.GoBinary))
	if err != nil {
		return nil, nil, fmt.Errorf("link: %w", err)
	}
	d, err := remotePing(ctx, h, bin, direct)
	if err != nil {
		return nil, nil, fmt.Errorf("link: app to database: %w", err)
	}
	p, err := remotePing(ctx, h, bin, path)
	if err != nil {
		return nil, nil, fmt.Errorf("link: targets' path: %w", err)
	}
	l, err := pingRTT(ctx, direct, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("link: runner to database: %w", err)
	}
	e, probe, err := handshakeRTT(ctx, h)
	if err != nil {
		return nil, nil, fmt.Errorf("link: runner to app: %w", err)
	}
	links := []*results.RoleLink{
		{From: topology.Load, To: topology.App, Via: "direct", Probe: probe, RTT: e, Pings: linkPings},
		{From: topology.App, To: topology.DB, Via: "direct", Probe: pingProbe(direct), RTT: d, Pings: linkPings},
		{From: topology.App, To: topology.DB, Via: "counting proxy", Probe: pingProbe(direct), RTT: p, Pings: linkPings},
		{From: topology.Load, To: topology.DB, Via: "direct", Probe: pingProbe(direct), RTT: l, Pings: linkPings},
	}
	return &results.Link{Added: r.o.RTT.Seconds(), Direct: d, Path: p, Pings: linkPings}, links, nil
}

// remotePing runs gotarget --ping on the app's host against dsn, put there for it.
func remotePing(ctx context.Context, h *remote.Host, bin, dsn string) (float64, error) {
	f, err := h.Put(ctx, "dsn-link", []byte(dsn+"\n"))
	if err != nil {
		return 0, err
	}
	defer h.Remove(context.Background(), f)
	out, err := h.Output(ctx, bin, "--ping", strconv.Itoa(linkPings), "--dsn-file", f, "--dsn-file-remove")
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
}

// handshakeRTT times TCP handshakes from the runner to the app's host: a SYN to a port
// nobody listens on there, which its kernel answers with a RST at once (one round
// trip, no process woken); where a firewall drops that, a connection to its sshd.
func handshakeRTT(ctx context.Context, h *remote.Host) (float64, string, error) {
	closed, err := h.FreeAddr(ctx)
	if err != nil {
		return 0, "", err
	}
	d := net.Dialer{Timeout: 2 * time.Second}
	refused := func() error {
		c, err := d.DialContext(ctx, "tcp", closed)
		if err == nil {
			c.Close()
			return errors.New("a port found free there answered")
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil
		}
		return err
	}
	if refused() == nil {
		rtt, err := timedMedian(refused)
		return rtt, "TCP SYN/RST", err
	}
	sshd := net.JoinHostPort(h.Name, strconv.Itoa(h.Port))
	rtt, err := timedMedian(func() error {
		c, err := d.DialContext(ctx, "tcp", sshd)
		if err == nil {
			c.Close()
		}
		return err
	})
	return rtt, "TCP handshake", err
}
