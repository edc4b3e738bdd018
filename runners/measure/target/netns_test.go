package target

import (
	"context"
	"net/url"
	"os"
	"strconv"
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/topology"
	"dbbench/runners/results"
)

// A target in the app role's namespace: it listens on the role's address, its
// processes are there, and what the runner reads of it (Go's metrics through the
// forwarded admin listener, php-fpm's status page from the runner's address) reads.
func TestTargetsInANamespace(t *testing.T) {
	if err := topology.Check(results.Netns); err != nil {
		t.Skip(err)
	}
	topo, err := topology.Start(context.Background(), results.Netns)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := topo.Close(); err != nil {
			t.Error(err)
		}
	}()
	own, _ := os.Readlink("/proc/self/ns/net")
	for _, v := range []struct {
		lang, server string
		pool         int
	}{{"go", "nethttp", 2}, {"php", "fpm", 2}} {
		t.Run(v.lang, func(t *testing.T) {
			o := Options{Host: topo.App, From: topo.Load.Addr, RepoRoot: phpRepoRoot, Log: testLog{t}}
			if v.lang == "go" {
				o.BinDir = goBinDir(t)
			}
			variant := matrix.Variant{Lang: v.lang, Server: v.server, Layer: "hello", Stmt: "none", Conn: "none", Pool: v.pool}
			tg, err := Start(context.Background(), specOf(t, variant), o)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Stop()
			if u, err := url.Parse(tg.URL); err != nil || u.Hostname() != topo.App.Addr {
				t.Errorf("URL %s is not on the app's address %s", tg.URL, topo.App.Addr)
			}
			if r := get(t, tg.URL+"/hello"); r.status != 200 {
				t.Errorf("GET /hello = %d", r.status)
			}
			for _, pid := range tg.PIDs() {
				if ns, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/net"); ns == own {
					t.Errorf("pid %d of the target is in the runner's namespace", pid)
				}
			}
			get(t, tg.URL+"/hello") // a request served, for php-fpm's memory figure
			if _, err := tg.Runtime(context.Background()); err != nil {
				t.Errorf("runtime: %v", err)
			}
		})
	}
}
