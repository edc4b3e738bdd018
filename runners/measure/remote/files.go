package remote

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"dbbench/runners/measure/freeport"
	"dbbench/runners/measure/procstat"
)

// Copy puts the local file there once per host (the Go target's binary), executable,
// and returns its path there. A binary built for another architecture is refused.
func (h *Host) Copy(ctx context.Context, local string) (string, error) {
	h.mu.Lock()
	there, ok := h.copied[local]
	h.mu.Unlock()
	if ok {
		return there, nil
	}
	if arch := goArch(h.Env["arch"]); arch != runtime.GOARCH {
		return "", fmt.Errorf("remote: %s is %s, and %s was built for %s: build it for the host (GOARCH=%s make build)",
			h, h.Env["arch"], filepath.Base(local), runtime.GOARCH, arch)
	}
	f, err := os.Open(local)
	if err != nil {
		return "", fmt.Errorf("remote: %w", err)
	}
	defer f.Close()
	there = h.Scratch + "/" + filepath.Base(local)
	if _, err := h.script(ctx, f, `cat > "$1" && chmod 700 "$1"`, there); err != nil {
		return "", err
	}
	h.mu.Lock()
	h.copied[local] = there
	h.mu.Unlock()
	return there, nil
}

// goArch is uname -m's machine as Go names it.
func goArch(machine string) string {
	switch machine {
	case "x86_64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	case "i386", "i686":
		return "386"
	}
	return machine
}

// Put writes data to name in the scratch directory, readable by the user only (a DSN),
// and returns its path there.
func (h *Host) Put(ctx context.Context, name string, data []byte) (string, error) {
	there := h.Scratch + "/" + name
	_, err := h.script(ctx, bytes.NewReader(data), `umask 077; cat > "$1"`, there)
	return there, err
}

// Remove removes files of the scratch directory.
func (h *Host) Remove(ctx context.Context, paths ...string) error {
	_, err := h.script(ctx, nil, `rm -f "$@"`, paths...)
	return err
}

// FreeAddr is Addr:PORT with a port nothing listens on there (from /proc/net/tcp),
// below the ephemeral range, for a server the runner reaches.
func (h *Host) FreeAddr(ctx context.Context) (string, error) { return h.free(ctx, h.Addr) }

// FreeLoopback is 127.0.0.1:PORT there, for what only the host may reach (pprof);
// Forward brings it here.
func (h *Host) FreeLoopback(ctx context.Context) (string, error) { return h.free(ctx, "127.0.0.1") }

func (h *Host) free(ctx context.Context, ip string) (string, error) {
	out, err := h.script(ctx, nil, `cat /proc/net/tcp /proc/net/tcp6 2>/dev/null; true`)
	if err != nil {
		return "", err
	}
	taken := listening(string(out))
	for range 1000 {
		if p := 20000 + rand.IntN(12000); !taken[p] {
			return net.JoinHostPort(ip, strconv.Itoa(p)), nil
		}
	}
	return "", fmt.Errorf("remote: %s: no free port found", h)
}

// listening reads the ports in state LISTEN (0A) of /proc/net/tcp lines.
func listening(tcp string) map[int]bool {
	out := map[int]bool{}
	for _, l := range strings.Split(tcp, "\n") {
		f := strings.Fields(l)
		if len(f) < 4 || f[3] != "0A" {
			continue
		}
		if _, port, ok := strings.Cut(f[1], ":"); ok {
			if p, err := strconv.ParseUint(port, 16, 16); err == nil {
				out[int(p)] = true
			}
		}
	}
	return out
}

// Forward makes addr, an address only the host reaches, reachable on a loopback
// address here, through the connection (ssh -O forward -L); stop ends it.
func (h *Host) Forward(addr string) (string, func() error, error) {
	var last error
	for range forwardTries {
		here, err := pickPort()
		if err != nil {
			return "", nil, err
		}
		spec := here + ":" + addr
		mux := func(op string) error {
			out, err := exec.Command("ssh", append([]string{"-S", h.sock(), "-O", op, "-L", spec}, h.target()...)...).CombinedOutput()
			if err != nil {
				return fmt.Errorf("remote: %s: ssh -O %s -L %s: %v: %s", h, op, spec, err, strings.TrimSpace(string(out)))
			}
			return nil
		}
		// ssh binds the port here itself and says so: a port another process took
		// between its pick and ssh's bind fails the forward, and another is picked.
		if last = mux("forward"); last != nil {
			if h.Alive() != nil {
				return "", nil, h.Alive()
			}
			continue
		}
		return here, func() error {
			if h.Alive() != nil {
				return nil // gone with the connection
			}
			return mux("cancel")
		}, nil
	}
	return "", nil, last
}

// forwardTries is how many ports Forward tries: a lost race for one is rare, three in
// a row is something else, reported.
const forwardTries = 3

// pickPort is where Forward picks a port here; tests make it lose the race.
var pickPort = freeport.Addr

// ProcFS reads there, in one command, the /proc files of pids that procstat reads.
func (h *Host) ProcFS(ctx context.Context, pids []int) (procstat.FS, error) {
	args := make([]string, len(pids))
	for i, p := range pids {
		args[i] = strconv.Itoa(p)
	}
	out, err := h.script(ctx, nil, procstat.DumpScript, args...)
	if err != nil {
		return nil, err
	}
	return procstat.ReadDump(bytes.NewReader(out))
}

// ResetPeakRSS starts the peak resident sets of pids there anew (procstat.ResetPeakRSS).
func (h *Host) ResetPeakRSS(ctx context.Context, pids []int) error {
	args := make([]string, len(pids))
	for i, p := range pids {
		args[i] = strconv.Itoa(p)
	}
	_, err := h.script(ctx, nil, `for p in "$@"; do [ -w /proc/$p/clear_refs ] && printf 5 > /proc/$p/clear_refs; done; true`, args...)
	return err
}

// Output runs argv there and returns its standard output.
func (h *Host) Output(ctx context.Context, argv ...string) ([]byte, error) {
	return h.script(ctx, nil, `exec "$@"`, argv...)
}
