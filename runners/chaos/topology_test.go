package chaos

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/measure/topology"
	"dbbench/runners/results"
)

func needNetns(t *testing.T) {
	t.Helper()
	if err := topology.Check(results.Netns); err != nil {
		t.Skip(err)
	}
}

// noTopologyLeft fails the test if dbbench (pid) left a namespace or a link.
func noTopologyLeft(t *testing.T, pid int) int {
	t.Helper()
	left := topology.Left(pid)
	for _, l := range left {
		t.Errorf("left behind: %s", l)
	}
	return len(left)
}

// A smoke run of a Go and a PHP variant with every role in a namespace of its own
// counts the same commands per request as the same run on loopback; the commands came
// from the app's address over its veth, every role's link carried the traffic, and
// nothing is left afterwards. On MariaDB and on PostgreSQL (pgx in Go), each server
// started in the database's namespace.
func TestNetnsCountsAsLoopbackDoes(t *testing.T) {
	needNetns(t)
	for _, c := range []struct{ db, preset, variants string }{
		{"mariadb", "smoke", goRaw + "|" + phpRaw},
		{"postgres", "quick", "^lang=go/server=nethttp/layer=pgx/stmt=cache_statement/conn=persistent/|" + phpRaw}, // smoke has no pgx
	} {
		t.Run(c.db, func(t *testing.T) { netnsAsLoopback(t, c.db, c.preset, c.variants) })
	}
}

func netnsAsLoopback(t *testing.T, db, preset, variants string) {
	runs := map[results.TopologyKind]*results.Run{}
	for _, kind := range []results.TopologyKind{results.Loopback, results.Netns} {
		tmp := newTmp(t)
		if err := os.Chmod(tmp, 0o711); err != nil { // PostgreSQL runs as its own user, in TMPDIR
			t.Fatal(err)
		}
		out := filepath.Join(tmp, "run")
		p := dbbench(t, tmp, runArgs(out, variants, "--duration", "300ms", "--topology", string(kind), "--db", db, "--preset", preset)...)
		if code := p.wait(2 * time.Minute); code != 0 {
			t.Fatalf("%s run: exit %d\n%s", kind, code, p.errText())
		}
		res, _ := written(t, out)
		leftovers(t, tmp, nil)
		noTopologyLeft(t, p.cmd.Process.Pid)
		if res == nil || res.TopologyKind() != kind || len(res.Variants) != 2 {
			t.Fatalf("%s run: results %v", kind, res)
		}
		runs[kind] = res
	}
	lo, ns := runs[results.Loopback], runs[results.Netns]
	app := place(ns, topology.App)
	for i, v := range ns.Variants {
		w := lo.Variants[i]
		if v.Roundtrips == nil || w.Roundtrips == nil || !v.Roundtrips.Match {
			t.Fatalf("%s: round trips %+v on netns, %+v on loopback", v.Key, v.Roundtrips, w.Roundtrips)
		}
		if !maps.Equal(v.Roundtrips.Wire, w.Roundtrips.Wire) || !maps.Equal(v.Roundtrips.Log, w.Roundtrips.Log) {
			t.Errorf("%s: commands per request on netns (wire %v, log %v) differ from loopback's (wire %v, log %v)",
				v.Key, v.Roundtrips.Wire, v.Roundtrips.Log, w.Roundtrips.Wire, w.Roundtrips.Log)
		}
		if !slices.Equal(v.Roundtrips.WireFrom, []string{app.Addr}) || !slices.Equal(w.Roundtrips.WireFrom, []string{"127.0.0.1"}) {
			t.Errorf("%s: commands came from %v on netns (want the app's %s), %v on loopback", v.Key, v.Roundtrips.WireFrom, app.Addr, w.Roundtrips.WireFrom)
		}
		t.Logf("%s: wire %v from %v, as on loopback", v.Key, v.Roundtrips.Wire, v.Roundtrips.WireFrom)
	}
	for _, p := range ns.Topology.Roles {
		if p.Link == "" || p.BytesIn < 100000 || p.BytesOut < 100000 {
			t.Errorf("role %s: its link %q carried %d bytes in, %d out", p.Role, p.Link, p.BytesIn, p.BytesOut)
		}
	}
	for _, l := range ns.Topology.Links {
		t.Logf("round trip %s→%s (%s, %s): %.1f µs", l.From, l.To, l.Via, l.Probe, l.RTT*1e6)
	}
	table.Add(Row{"netns smoke, " + db, "every role in its own namespace", "commands per request as on loopback, from " + app.Addr, 0, "-"})
}

func place(r *results.Run, role string) *results.Place {
	for _, p := range r.Topology.Roles {
		if p.Role == role {
			return p
		}
	}
	return &results.Place{}
}

// SIGINT while the namespaces are being made, or just after: the run ends as
// interrupted, and no namespace, link or process is left.
func TestNetnsInterruptDuringSetUp(t *testing.T) {
	needNetns(t)
	for _, at := range []string{"namespace", "bridge", "provisioning"} {
		tmp := newTmp(t)
		p := dbbench(t, tmp, runArgs(filepath.Join(tmp, "run"), goRaw, "--topology", string(results.Netns))...)
		pid := p.cmd.Process.Pid
		if !waitSetUp(p, at) {
			t.Fatalf("%s: never seen:\n%s", at, p.errText())
		}
		p.signal(syscall.SIGINT)
		code := p.wait(60 * time.Second)
		n := leftovers(t, tmp, nil) + noTopologyLeft(t, pid)
		if code != 0 {
			p.oneErrorLine(`run interrupted`)
		}
		t.Logf("SIGINT at %s: exit %d, %d left", at, code, n)
		table.Add(Row{"netns interrupted", "SIGINT at " + at + " of the set-up", fmt.Sprintf("exit %d", code), n, "-"})
	}
}

// waitSetUp polls for a point of the topology's set-up: the first namespace of the
// run, its bridge, or the provisioning line that follows the whole set-up.
func waitSetUp(p *proc, at string) bool {
	if at == "provisioning" {
		return p.waitFor(`^provisioning `, 60*time.Second)
	}
	prefix := fmt.Sprintf("dbbench-%d-", p.cmd.Process.Pid)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Microsecond) {
		ents, _ := os.ReadDir("/run/netns")
		for _, e := range ents {
			n, ours := strings.CutPrefix(e.Name(), prefix)
			if !ours {
				continue
			}
			if at == "namespace" {
				return true
			}
			if _, err := os.Stat("/sys/class/net/dbbench" + strings.Split(n, "-")[0]); err == nil {
				return true
			}
		}
	}
	return false
}

// Without root, --topology netns is refused before anything starts: one line naming
// the flag, exit status 2.
func TestNetnsNeedsRoot(t *testing.T) {
	setpriv, err := exec.LookPath("setpriv")
	if err != nil || os.Geteuid() != 0 {
		t.Skip("needs root and setpriv to run dbbench as nobody")
	}
	tmp := newTmp(t)
	bin := filepath.Join(tmp, "dbbench")
	b, err := os.ReadFile(filepath.Join(root, "bin", "dbbench"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o755)
	repo, _ := filepath.Abs("../..")
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "run", "--topology", "netns", "--out", filepath.Join(tmp, "run"))
	cmd.Env = append(os.Environ(), "DBBENCH_ROOT="+repo)
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if cmd.ProcessState.ExitCode() != 2 || len(lines) != 1 || !strings.Contains(lines[0], "--topology") || !strings.Contains(lines[0], "needs root") {
		t.Fatalf("as nobody: %v, output:\n%s", err, out)
	}
	t.Logf("as nobody: exit 2: %s", lines[0])
	table.Add(Row{"netns without root", "dbbench run --topology netns as nobody", "exit 2: " + trim(lines[0], 60), 0, "-"})
}
