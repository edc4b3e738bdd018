// Package target starts and stops the process (or processes) that serve one variant:
// the Go server binary, or nginx + php-fpm for PHP. The runner, `dbbench serve` and the
// integration tests all start targets through Start.
package target

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"dbbench/runners/freeport"
	"dbbench/runners/matrix"
)

// Options say where a target finds what it needs.
type Options struct {
	DSNFile  string    // file holding the full DSN on one line (mode 0600)
	Listen   string    // HTTP address; "" or a port of 0 picks a free loopback port
	RepoRoot string    // the repository (php/ templates live there)
	BinDir   string    // where `make build` put gotarget; "" means RepoRoot/bin
	RunDir   string    // scratch directory for configs and logs; "" means a new temp dir
	Log      io.Writer // start/stop lines; nil means os.Stderr
}

// Target is one running variant.
type Target struct {
	Variant  matrix.Variant
	URL      string // http://127.0.0.1:PORT, no trailing slash
	AdminURL string // Go only: DBStats and pprof; "" for PHP
	pids     func() []int
	stop     func() error
}

// PIDs lists every process serving the variant right now (for PHP: nginx master and
// workers, php-fpm master and children), so the runner can sum their CPU time.
func (t *Target) PIDs() []int { return t.pids() }

// Stop ends every process of the target and removes what it wrote. Safe to call twice.
func (t *Target) Stop() error {
	if t == nil || t.stop == nil {
		return nil
	}
	f := t.stop
	t.stop = nil
	return f()
}

// Start launches the target for v and returns once GET /hello answers 200.
func Start(ctx context.Context, v matrix.Variant, o Options) (*Target, error) {
	if o.Log == nil {
		o.Log = os.Stderr
	}
	// A port picked free can still be taken before the target binds it (by another
	// listener starting at the same moment): then pick again. Go's admin port is always
	// picked here; PHP's only port is picked when Listen does not name one.
	picked := v.Lang == "go" || o.Listen == "" || strings.HasSuffix(o.Listen, ":0")
	for attempt := 1; ; attempt++ {
		t, err := startOnce(ctx, v, o)
		if err == nil || !picked || attempt == 3 || !strings.Contains(strings.ToLower(err.Error()), "address already in use") {
			return t, err
		}
		fmt.Fprintf(o.Log, "target %s: a port picked free was taken before the target bound it; picking again\n", v.Key())
	}
}

// startOnce is a variable so the retry above can be tested without a port race.
var startOnce = start

func start(ctx context.Context, v matrix.Variant, o Options) (*Target, error) {
	switch v.Lang {
	case "go":
		return startGo(ctx, v, o)
	case "php":
		return startPHP(ctx, v, o)
	default:
		return nil, fmt.Errorf("target: unknown lang %q in %s (want go or php)", v.Lang, v.Key())
	}
}

// FreeAddr returns a loopback address with a port nobody listens on right now, outside
// the range outgoing connections take their ports from (see package freeport).
func FreeAddr() (string, error) {
	addr, err := freeport.Addr()
	if err != nil {
		return "", fmt.Errorf("target: %w", err)
	}
	return addr, nil
}

// listenAddr turns "" into a free loopback address and a port of 0 into a free port on
// the host given. (startGo uses it too.)
func listenAddr(addr string) (string, error) {
	if addr == "" {
		return FreeAddr()
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("target: listen address %q: %w", addr, err)
	}
	if port != "0" {
		return addr, nil
	}
	if host == "127.0.0.1" {
		return FreeAddr()
	}
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return "", fmt.Errorf("target: find a free port on %s: %w", host, err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// WaitHealthy polls url until it answers 200, exited is closed (the process died), or
// timeout passes.
func WaitHealthy(ctx context.Context, url string, exited <-chan struct{}, timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("target: %s not healthy after %v (last: %v)", url, timeout, statusOrErr(resp, err))
		}
		select {
		case <-exited:
			return fmt.Errorf("target: process exited before %s answered", url)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func statusOrErr(resp *http.Response, err error) string {
	if err != nil {
		return err.Error()
	}
	return resp.Status
}
