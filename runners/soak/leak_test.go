package soak

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/dbtest"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/revision"
	"dbbench/runners/soak/soaktest"
)

// leakSpec is what the planted-leak soak asks the test build to leak: one prepared
// statement and one descriptor every 200 requests (at a thousand requests a second,
// five of each a second). Every 500 was caught on an idle machine, but with the two
// cores starved by a benchmark (56% of the offered rate achieved) the last half of the
// judged window saw too few new leaks to tell growth from settling; the test must not
// depend on the machine's speed. The target may hold 20000 descriptors, and a soak
// of this test leaks a few hundred.
const leakSpec = "stmt:200,fd:200"

// buildTarget builds gotarget, with the leak knob when tags is "leak", into a new
// directory, and returns the directory.
func buildTarget(t *testing.T, tags string) string {
	t.Helper()
	dir := t.TempDir()
	var tagList []string
	if tags != "" {
		tagList = []string{tags}
	}
	cmd := revision.GoBuild(context.Background(), "../..", filepath.Join(dir, "gotarget"), tagList...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	}
	return dir
}

// The knob is not in the release build: its binary does not even hold the variable's
// name, which the test build's does (so the check can fail).
func TestReleaseBuildHasNoLeakKnob(t *testing.T) {
	for _, c := range []struct {
		tags string
		want bool
	}{{"", false}, {"leak", true}} {
		b, err := os.ReadFile(filepath.Join(buildTarget(t, c.tags), "gotarget"))
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(b, []byte("DBBENCH_LEAK")); got != c.want {
			t.Errorf("build with tags %q holds DBBENCH_LEAK: %v, want %v", c.tags, got, c.want)
		}
	}
}

// shortSoak soaks one Go variant for 60 s with the gotarget in binDir: 20 samples are
// judged after a 20 s warm-up. db is the soak's database: an embedded server of its
// own, or a dsn.
func shortSoak(t *testing.T, binDir string, db provider.Options) (*File, error) {
	m, err := matrix.Load("../matrix.yaml")
	if err != nil {
		return nil, err
	}
	v, err := m.Resolve("lang=go/layer=raw/stmt=prepare/conn=persistent/pool=8")
	if err != nil {
		return nil, err
	}
	root, _ := filepath.Abs("../..")
	o := Options{
		Root: root, BinDir: binDir, Matrix: m, Variants: []matrix.Variant{v},
		DB:       db,
		Duration: 60 * time.Second, Interval: 2 * time.Second, Warmup: 20 * time.Second,
		// Half the capacity, not 80%: the two soaks of the test share the machine and
		// measure their capacities at nearly but not exactly the same time. As many
		// connections as the pool holds, so no request waits for a pooled connection.
		CapacityWarmup: 2 * time.Second, CapacityTime: 5 * time.Second, RateFraction: 0.5, Connections: 8,
		Seed: 1, Out: t.TempDir(), Log: testLog{t},
	}
	start := time.Now()
	f, err := Run(context.Background(), o)
	if err != nil {
		return nil, err
	}
	t.Logf("soak of %v with %s took %v; %d samples", o.Duration, binDir, time.Since(start).Round(time.Second), f.Samples)
	_, err = WriteReport(o.Out)
	return f, err
}

// A planted leak is caught: the test build leaking statements and descriptors is
// flagged on exactly those series, and the release build, same soak, on nothing. Both
// soaks run at once (two databases, two targets), each with DBBENCH_LEAK set: the
// release build must ignore it.
//
// The leaky build's soak runs on a server given as a dsn, to which an outside client
// leaks too (outsideLeak): its connections and statements are flagged as no target's,
// at their own rate, not the target's.
func TestPlantedLeakIsCaught(t *testing.T) {
	leakDir, cleanDir := buildTarget(t, "leak"), buildTarget(t, "")
	t.Setenv("DBBENCH_LEAK", leakSpec)
	server, err := provider.Start(context.Background(), provider.Options{Rows: 10000, Instruments: true, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	stop := outsideLeak(t, server)
	var leaky, clean *File
	var leakErr, cleanErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		leaky, leakErr = shortSoak(t, leakDir, provider.Options{Kind: "dsn", DSN: server.DSN(), Rows: 10000, Log: testLog{t}})
	})
	wg.Go(func() { clean, cleanErr = shortSoak(t, cleanDir, provider.Options{Rows: 10000, Log: testLog{t}}) })
	wg.Wait()
	stop()
	server.Close()
	dbtest.AssertNoChildren(t)
	if leakErr != nil || cleanErr != nil {
		t.Fatalf("soaks: leaky build: %v; release build: %v", leakErr, cleanErr)
	}
	assertOutsideLeak(t, leaky, clean)

	want := []string{"database/prepared_stmt_count", "database/stmt_open", "target/fds"}
	for _, key := range want {
		s := find(leaky, key)
		if s == nil || s.Verdict == nil {
			t.Fatalf("leaky build: no series %s", key)
		}
		t.Logf("leaky build: %s %s: slope %+.0f/h [%+.0f, %+.0f]", key, s.Verdict.Verdict, 3600*s.Verdict.Slope, 3600*s.Verdict.Lo, 3600*s.Verdict.Hi)
		if s.Verdict.Verdict != Grows {
			t.Errorf("leaky build: %s is %s, want grows (%s)", key, s.Verdict.Verdict, s.Verdict.Reason)
		}
		// What it leaked, it keeps with no load running.
		if s.RestBefore == nil || s.RestAfter == nil || s.RestAfter.Value <= s.RestBefore.Value {
			t.Errorf("leaky build: %s at rest before %+v and after %+v: want more after", key, s.RestBefore, s.RestAfter)
		}
		if s.Limit == nil || s.Verdict.ToLimit == nil || *s.Verdict.ToLimit <= 0 {
			t.Errorf("leaky build: %s grows but has no time to its limit", key)
		} else {
			t.Logf("leaky build: %s reaches %s in %s", key, s.Limit.Name, fmtDuration(*s.Verdict.ToLimit))
		}
	}
	// The release build leaks nothing: no series grows or reaches a limit. Its load may
	// fall short of the offered rate when the machine is busy with something else
	// (another test package, CI's neighbours): that is logged, and is not a leak.
	names, roles := clean.Roles()
	for i, r := range roles {
		for _, s := range r.Series {
			switch v := s.Verdict; {
			case v.Verdict == Grows || v.Verdict == Reached:
				t.Errorf("release build: %s %s is %s (%s)", names[i], s.Name, v.Verdict, v.Reason)
			case v.Flagged():
				t.Logf("release build: %s %s is %s (%s): the machine was busy", names[i], s.Name, v.Verdict, v.Reason)
			}
		}
	}
	for _, key := range want {
		s := find(clean, key)
		t.Logf("release build: %s %s: slope %+.0f/h [%+.0f, %+.0f]", key, s.Verdict.Verdict, 3600*s.Verdict.Slope, 3600*s.Verdict.Lo, 3600*s.Verdict.Hi)
	}
}

// Rates of the outside client's leak: far above the (a statement every 4 s, a
// connection every 15 s), so that the 40 s a short soak judges see enough of each.
const (
	outsideStmtEvery = time.Second
	outsideConnEvery = 4 * time.Second
)

// outsideLeak leaks from a client no target is (soaktest.Leak) until stop is called.
func outsideLeak(t *testing.T, server *provider.DB) (stop func()) {
	pool, err := server.Open()
	if err != nil {
		t.Fatal(err)
	}
	l, err := soaktest.StartLeak(pool, soaktest.Spec{Stmt: server.Rebind("SELECT ? + 1"), StmtEvery: outsideStmtEvery, ConnEvery: outsideConnEvery})
	if err != nil {
		t.Fatal(err)
	}
	return func() {
		stmts, conns, err := l.Stop()
		pool.Close()
		t.Logf("outside client leaked %d statements and %d connections", stmts, conns)
		if err != nil {
			t.Error(err)
		}
	}
}

// assertOutsideLeak checks that the outside client's connections and statements grow
// in the leaky build's soak, at about the client's rates and not the target's, and that
// the clean soak, which no client but its target reaches, has none.
func assertOutsideLeak(t *testing.T, leaky, clean *File) {
	t.Helper()
	for _, c := range []struct {
		name  string
		every time.Duration
	}{{"outside_connections", outsideConnEvery}, {"outside_statements", outsideStmtEvery}} {
		s := find(leaky, "database/"+c.name)
		if s == nil || s.Verdict == nil {
			t.Fatalf("leaky build: no series %s", c.name)
		}
		v, want := s.Verdict, 3600/c.every.Seconds()
		t.Logf("outside client: %s %s: %+.0f/h [%+.0f, %+.0f], leaked at %.0f/h", c.name, v.Verdict, 3600*v.Slope, 3600*v.Lo, 3600*v.Hi, want)
		if v.Verdict != Grows || 3600*v.Slope < want/2 || 3600*v.Slope > 2*want {
			t.Errorf("outside client: %s is %s at %+.0f/h (%s); want grows at about %.0f/h", c.name, v.Verdict, 3600*v.Slope, v.Reason, want)
		}
		if cs := find(clean, "database/"+c.name); cs == nil || cs.Verdict == nil || cs.Verdict.Verdict != Flat || cs.Verdict.Median != 0 {
			t.Errorf("release build, no outside client: %s is %+v; want flat at 0", c.name, cs)
		}
	}
	if r := leaky.Rising(); len(r) != 0 {
		t.Logf("leaky build: rising, unresolved: %v", r)
	}
}

// find returns "database/NAME" or "target/NAME" (of the only variant).
func find(f *File, key string) *Series {
	role, name, _ := strings.Cut(key, "/")
	r := f.Database
	if role == "target" {
		r = &f.Variants[0].Role
	}
	for _, s := range r.Series {
		if s.Name == name {
			return s
		}
	}
	return nil
}

type testLog struct{ t *testing.T }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}
