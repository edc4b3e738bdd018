package target

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/remote"
)

// dsnFiles numbers the DSN files put on remote hosts.
var dsnFiles atomic.Int64

// startRemote runs gotarget on o.Remote with args (goArgs'): the binary copied there
// once, the DSN file put there (0600) until the target has read it, the admin listener on the
// host's loopback brought here through the connection, and /proc read there.
func (l goLauncher) startRemote(ctx context.Context, s matrix.Spec, o Options, args []string) (_ *Target, err error) {
	v, h := s.Variant, o.Remote
	fail := func(err error) error { return fmt.Errorf("target %s on %s: %w", v.Key(), h, err) }
	bin, err := h.Copy(ctx, l.binary(o))
	if err != nil {
		return nil, fail(err)
	}
	var cleanup []func()
	defer func() {
		if err != nil {
			for _, f := range cleanup {
				f()
			}
		}
	}()
	if n := len(args); n >= 2 && args[n-2] == "--dsn-file" {
		b, err := os.ReadFile(args[n-1])
		if err != nil {
			return nil, fail(err)
		}
		there, err := h.Put(ctx, fmt.Sprintf("dsn-%d", dsnFiles.Add(1)), b)
		if err != nil {
			return nil, fail(err)
		}
		cleanup = append(cleanup, func() { h.Remove(context.Background(), there) })
		// The target removes it once read, before its first request: no copy of the
		// password stays on a host the user may not watch (remote.go).
		args = append(args[:n-1], there, "--dsn-file-remove")
	}
	listen, err := h.FreeAddr(ctx)
	if err != nil {
		return nil, fail(err)
	}
	admin, err := h.FreeLoopback(ctx)
	if err != nil {
		return nil, fail(err)
	}
	out := &tailWriter{prefix: GoBinary + ": ", w: o.Log}
	p, err := h.Start(append([]string{bin}, append(args, "--listen", listen, "--admin-listen", admin)...), out)
	if err != nil {
		return nil, fail(err)
	}
	cleanup = append(cleanup, func() { p.Stop() })
	url := "http://" + listen
	if err := WaitHealthy(ctx, url+"/hello", p.Done(), goHealthyTimeout); err != nil {
		return nil, fmt.Errorf("target %s on %s: %w; %s said: %s", v.Key(), h, err, GoBinary, out.tail())
	}
	adminHere, unforward, err := h.Forward(admin)
	if err != nil {
		return nil, fail(err)
	}
	fmt.Fprintf(o.Log, "%s pid %d on %s serving %s on %s\n", GoBinary, p.PID, h, v.Key(), url)
	exited := func() error {
		select {
		case <-p.Done():
			if aerr := h.Alive(); aerr != nil {
				return aerr
			}
			return fmt.Errorf("%s pid %d on %s exited: %v; last output: %s", GoBinary, p.PID, h, p.Err(), out.tail())
		default:
			return nil
		}
	}
	stop := func() error {
		unforward()
		gone := exited()
		killed := p.Stop()
		for _, f := range cleanup[:len(cleanup)-1] { // the DSN file
			f()
		}
		switch {
		case gone != nil:
			return fmt.Errorf("target %s: %w", v.Key(), gone)
		case killed:
			return fmt.Errorf("target %s: %s pid %d on %s ignored SIGTERM and was killed", v.Key(), GoBinary, p.PID, h)
		}
		return nil
	}
	return &Target{
		Variant: v, URL: url, AdminURL: "http://" + adminHere, Runtime: goRuntime("http://" + adminHere), Holds: &goHolds{admin: "http://" + adminHere},
		pids: func() []int {
			if exited() != nil {
				return nil
			}
			return []int{p.PID}
		},
		alive:    exited,
		stop:     stop,
		proc:     func(pids []int) (procstat.FS, error) { return remoteProc(h, p, pids, exited) },
		resetRSS: func(pids []int) error { return h.ResetPeakRSS(context.Background(), pids) },
	}, nil
}

// remoteProc reads pids' /proc on h. When the target's is missing, it gives its
// session a moment to end, so that the error says the target exited, and how, rather
// than that a file was not there.
func remoteProc(h *remote.Host, p *remote.Proc, pids []int, exited func() error) (procstat.FS, error) {
	fsys, err := h.ProcFS(context.Background(), pids)
	if err == nil {
		if _, serr := fsys.ReadFile(fmt.Sprintf("/proc/%d/stat", p.PID)); serr == nil {
			return fsys, nil
		}
		select {
		case <-p.Done():
		case <-time.After(2 * time.Second):
		}
	}
	if gone := exited(); gone != nil {
		return nil, gone
	}
	return fsys, err
}
