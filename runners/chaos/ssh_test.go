package chaos

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/measure/sshtest"
	"dbbench/runners/results"
)

// sshArgs are a Go smoke run's arguments with the app on srv.
func sshArgs(out string, srv *sshtest.Server, key, knownHosts string, extra ...string) []string {
	return runArgs(out, goRaw, append([]string{"--app-host", srv.URL, "--ssh-key", key, "--known-hosts", knownHosts}, extra...)...)
}

// leftThere counts what a run left on the app host: processes in sshd's namespace
// besides sshd itself (the host is this machine), and with dirs scratch directories
// (a host that dropped removes its own when the connection goes).
func leftThere(t *testing.T, srv *sshtest.Server, dirs bool) int {
	t.Helper()
	n := 0
	left, _ := filepath.Glob(filepath.Join(srv.Tmp, "dbbench-app-*"))
	for _, d := range left {
		if dirs {
			t.Errorf("left on the app host: %s", d)
			n++
		}
	}
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, _ := exec.Command("ip", "netns", "pids", srv.Topo.App.Netns).Output()
		var others []string
		for _, f := range strings.Fields(string(out)) {
			comm, _ := os.ReadFile("/proc/" + f + "/comm")
			if c := strings.TrimSpace(string(comm)); c != "sshd" && c != "" {
				others = append(others, f+" "+c)
			}
		}
		if len(others) == 0 {
			return n
		}
		if time.Now().After(deadline) {
			t.Errorf("running on the app host: %v", others)
			return n + len(others)
		}
	}
}

// A Go smoke run with the targets on a host over SSH (sshd in a namespace of its own):
// the commands per request are the matrix's, counted at the proxy from the host's
// address; CPU and memory are read there; nothing is left on either side.
func TestAppHostOverSSH(t *testing.T) {
	appHostRun(t, "app host over ssh", "COM_PING")
}

// The same on PostgreSQL, pgx at its default mode: the URL the host's target reads
// names the proxy as the host sees it, the link is timed by pgx's empty query, and the
// frontend messages are counted from the host's address (make chaos).
func TestAppHostOverSSHOnPostgres(t *testing.T) {
	if !full {
		t.Skip("CHAOS=full: make test keeps one SSH run")
	}
	appHostRun(t, "app host over ssh, PostgreSQL", "empty query", "--db", "postgres", "--preset", "quick",
		"--variants", "^lang=go/server=nethttp/layer=pgx/stmt=cache_statement/conn=persistent/")
}

// appHostRun is a run of one Go variant with its target on sshd's host (extra are its
// flags beside the smoke run's), checked as TestAppHostOverSSH says; probe is how the
// database's round trip is timed.
func appHostRun(t *testing.T, name, probe string, extra ...string) {
	srv := sshtest.Start(t)
	tmp := newTmp(t)
	if err := os.Chmod(tmp, 0o711); err != nil { // PostgreSQL runs as its own user, in TMPDIR
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "run")
	p := dbbench(t, tmp, sshArgs(out, srv, srv.Key, srv.KnownHosts, append([]string{"--duration", "300ms"}, extra...)...)...)
	if code := p.wait(2 * time.Minute); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.errText())
	}
	res, _ := written(t, out)
	n := leftovers(t, tmp, map[int]bool{srv.PID(): true}) + leftThere(t, srv, true)
	if res == nil || res.TopologyKind() != results.SSH || len(res.Variants) != 1 {
		t.Fatalf("results %v", res)
	}
	app := place(res, "app")
	if app.Host != srv.URL || app.Addr != srv.Topo.App.Addr {
		t.Errorf("app role %+v", app)
	}
	for _, k := range []string{"arch", "kernel", "cpu", "cpu-count"} {
		if app.Environment[k] == "" {
			t.Errorf("the app host's environment has no %s: %v", k, app.Environment)
		}
	}
	if l := res.Link; l == nil || l.Direct <= 0 || l.Path <= 0 {
		t.Errorf("link measured from the app host: %+v", l)
	}
	fromApp := 0
	for _, l := range res.Topology.Links {
		if l.From == "app" && l.To == "db" && l.Probe == probe && l.RTT > 0 {
			fromApp++
		}
	}
	if fromApp != 2 { // direct and through the counting proxy
		t.Errorf("%d app→db round trips (%s) measured from the host, want 2: %+v", fromApp, probe, res.Topology.Links)
	}
	v := res.Variants[0]
	if !v.Valid || v.Roundtrips == nil || !v.Roundtrips.Match || !slices.Equal(v.Roundtrips.WireFrom, []string{app.Addr}) {
		t.Fatalf("%s: valid %v (%s), round trips %+v", v.Key, v.Valid, v.InvalidReason, v.Roundtrips)
	}
	for _, r := range v.Reps {
		if r.AppCPU <= 0 || r.AppRSS <= 0 {
			t.Errorf("rep %d: app CPU %g, RSS %d: not read on the host", r.Rep, r.AppCPU, r.AppRSS)
		}
	}
	for _, l := range res.Topology.Links {
		t.Logf("round trip %s→%s (%s, %s): %.1f µs", l.From, l.To, l.Via, l.Probe, l.RTT*1e6)
	}
	table.Add(Row{name, "a Go run, targets on sshd's host", fmt.Sprintf("commands %v from %s", v.Roundtrips.Wire, app.Addr), n, fmt.Sprintf("%d slices", len(v.Reps))})
}

// A wrong key or an unknown host: one line that says what to do, exit 2, nothing left.
func TestAppHostRefused(t *testing.T) {
	srv := sshtest.Start(t)
	for _, c := range []struct{ name, key, known, says string }{
		{"wrong key", srv.WrongKey, srv.KnownHosts, `^dbbench: usage: run: --app-host: key refused: .*authorized_keys`},
		{"unknown host", srv.Key, srv.Unknown, `^dbbench: usage: run: --app-host: host key not known: .*ssh-keyscan -p 2222`},
	} {
		tmp := newTmp(t)
		p := dbbench(t, tmp, sshArgs(filepath.Join(tmp, "run"), srv, c.key, c.known)...)
		code := p.wait(time.Minute)
		line := p.oneErrorLine(c.says)
		n := leftovers(t, tmp, map[int]bool{srv.PID(): true}) + leftThere(t, srv, true)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2", c.name, code)
		}
		table.Add(Row{"app host refused", c.name, fmt.Sprintf("exit %d: %s", code, trim(line, 60)), n, "-"})
	}
}

// The app host's sshd killed mid-run (as a host that drops), then its target: a clear
// error, the slices measured kept in a results.json that parses and says the run
// failed, nothing left running on either side (no gotarget there, no ssh master here).
// Full form only: make test keeps one SSH run (TestAppHostOverSSH), and runners/measure/remote
// tests a dropped connection on its own in a second.
func TestAppHostDrops(t *testing.T) {
	if !full {
		t.Skip("CHAOS=full: two runs of about 20 s each")
	}
	for _, kill := range []string{"sshd", "gotarget"} {
		srv := sshtest.Start(t)
		tmp := newTmp(t)
		out := filepath.Join(tmp, "run")
		p := dbbench(t, tmp, sshArgs(out, srv, srv.Key, srv.KnownHosts, "--reps", "6")...)
		if !p.waitFor(`^\[go slice 2\]`, 90*time.Second) {
			t.Fatalf("never reached slice 2:\n%s", p.errText())
		}
		// Mid-run the targets have read their DSN files, and removed them.
		if dsns, _ := filepath.Glob(filepath.Join(srv.Tmp, "dbbench-app-*", "dsn-*")); len(dsns) > 0 {
			t.Errorf("DSN files on the app host mid-run: %v", dsns)
		}
		if kill == "sshd" {
			srv.Kill()
		} else if pid := thereNamed(srv, "gotarget"); pid != 0 {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		code := p.wait(2 * time.Minute)
		res, reps := written(t, out)
		want := `run failed: the app host dropped: the connection to ssh://`
		if kill == "gotarget" {
			want = `variants invalid.*read counters: no such process: gotarget pid \d+ on ssh://\S+ exited`
		}
		line := p.oneErrorLine(want)
		// Nothing there either way: a host that drops removes the scratch directory itself.
		n := leftovers(t, tmp, map[int]bool{srv.PID(): true}) + leftThere(t, srv, true)
		if code != 1 || res == nil || reps == 0 {
			t.Fatalf("%s killed: exit %d, %d slices kept", kill, code, reps)
		}
		if kill == "sshd" && (res.Status != "failed" || !strings.Contains(res.Error, "the app host dropped")) {
			t.Errorf("results.json says %s: %q", res.Status, res.Error)
		}
		table.Add(Row{"app host drops", kill + " killed at slice 2", fmt.Sprintf("exit %d: %s", code, trim(cause(line), 60)), n, fmt.Sprintf("%d slices", reps)})
	}
}

// thereNamed is a process in sshd's namespace named comm, or 0.
func thereNamed(srv *sshtest.Server, comm string) int {
	out, _ := exec.Command("ip", "netns", "pids", srv.Topo.App.Netns).Output()
	for _, f := range strings.Fields(string(out)) {
		if c, _ := os.ReadFile("/proc/" + f + "/comm"); strings.TrimSpace(string(c)) == comm {
			pid, _ := strconv.Atoi(f)
			return pid
		}
	}
	return 0
}

// SIGINT while the app host is being set up, or just after: the run ends as
// interrupted, the scratch directory there is removed and nothing runs on either side.
// Full form only, as TestAppHostDrops.
func TestAppHostInterruptDuringSetUp(t *testing.T) {
	if !full {
		t.Skip("CHAOS=full: make test keeps one SSH run")
	}
	srv := sshtest.Start(t)
	for _, at := range []string{`^app host ssh://`, `^provisioning `, `^go: starting `} {
		tmp := newTmp(t)
		p := dbbench(t, tmp, sshArgs(filepath.Join(tmp, "run"), srv, srv.Key, srv.KnownHosts)...)
		if !p.waitFor(at, 90*time.Second) {
			t.Fatalf("%s: never seen:\n%s", at, p.errText())
		}
		p.signal(syscall.SIGINT)
		code := p.wait(60 * time.Second)
		n := leftovers(t, tmp, map[int]bool{srv.PID(): true}) + leftThere(t, srv, true)
		if code != 0 {
			p.oneErrorLine(`run interrupted`)
		}
		table.Add(Row{"app host interrupted", "SIGINT at " + strings.Trim(at, "^ "), fmt.Sprintf("exit %d", code), n, "-"})
	}
}

// The app host's sshd killed at each point of a run where the host holds something:
// just after the set-up (before the copy), during verification, mid-slice, and at the
// end. Within a second of the drop the host holds no scratch directory and no file with
// the DSN, and the run exits 1. (A run with --app-host profiles nothing, so there is no
// profiling point.) Full form only, as TestAppHostDrops.
func TestAppHostDropsAtEveryPoint(t *testing.T) {
	if !full {
		t.Skip("CHAOS=full: four runs of up to 20 s")
	}
	for _, at := range []struct{ name, line string }{
		// The set-up's line comes before the target's binary is copied (measure/target/goremote.go).
		// No point during profiling: a run with --app-host does not profile (the profiler
		// reads this host's processes), and says so.
		{"after the set-up, before the binary's copy", `^app host ssh://.*; scratch `},
		{"during verification", `^\[check 1/`},
		{"mid-slice", `^\[go slice 2\]`},
		{"at the end", `^yardstick: after go`},
	} {
		srv := sshtest.Start(t)
		tmp := newTmp(t)
		p := dbbench(t, tmp, sshArgs(filepath.Join(tmp, "run"), srv, srv.Key, srv.KnownHosts, "--reps", "4")...)
		if !p.waitFor(at.line, 90*time.Second) {
			t.Fatalf("%s: %s never seen:\n%s", at.name, at.line, p.errText())
		}
		srv.Kill()
		dropped := time.Now()
		var dirs, dsns []string
		for time.Since(dropped) < time.Second {
			dirs, _ = filepath.Glob(filepath.Join(srv.Tmp, "dbbench-app-*"))
			dsns, _ = filepath.Glob(filepath.Join(srv.Tmp, "dbbench-app-*", "dsn-*"))
			if len(dirs) == 0 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		gone := time.Since(dropped).Round(10 * time.Millisecond)
		if len(dirs) > 0 || len(dsns) > 0 {
			t.Errorf("%s: a second after the drop the host holds %v (DSN files %v)", at.name, dirs, dsns)
		}
		code := p.wait(2 * time.Minute)
		n := leftovers(t, tmp, map[int]bool{srv.PID(): true}) + leftThere(t, srv, true)
		// At the end the run has done with the host: it may finish as if nothing
		// happened. Before, it fails, keeping what it measured.
		if code != 1 && (code != 0 || at.name != "at the end") {
			t.Errorf("%s: exit %d, want 1:\n%s", at.name, code, p.errText())
		}
		table.Add(Row{"app host drops", "sshd killed " + at.name, fmt.Sprintf("exit %d; scratch gone within %v, %d DSN files", code, gone, len(dsns)), n, "-"})
	}
}
