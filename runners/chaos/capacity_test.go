package chaos

import (
	"dbbench/runners/saturation"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// 7. Thousands of client connections against a PHP pool of 4 and a Go pool of 1.
func TestFarPastCapacity(t *testing.T) {
	conns := 4000
	if full {
		conns = 4000
	}
	base, err := os.ReadFile(filepath.Join(root, "runners", "matrix.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// A preset of our own, in a copy of the matrix: the CLI has no flag for pools.
	preset := fmt.Sprintf(`
  chaos:
    about: "far past capacity"
    include: ["%s", "%s"]
    pools: {go: [1], php: [4]}
    connections: %d
    warmup: 300ms
    duration: 2s
    reps: 1
    budget: 1s
`, goRaw, phpRaw, conns)
	if !strings.HasSuffix(strings.TrimRight(string(base), "\n"), "budget: 40m") {
		t.Fatal("matrix.yaml no longer ends with the presets: place the chaos preset differently")
	}
	tmp := newTmp(t)
	matrix := filepath.Join(tmp, "matrix.yaml")
	if err := os.WriteFile(matrix, append(base, preset...), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tmp, "run")
	p := dbbench(t, tmp, "run", "--matrix", matrix, "--preset", "chaos", "--rows", "1000", "--keepalive=false", "--pool-check=false", "--out", out)
	start := time.Now()
	code := p.wait(5 * time.Minute) // a run still going then is a hang: wait fails the test
	took := time.Since(start)
	res, reps := written(t, out)
	left := leftovers(t, tmp, nil)
	if res == nil {
		t.Fatalf("no results.json:\n%s", p.errText())
	}
	var outcome []string
	flagged := 0
	for _, v := range res.Variants {
		var classes []string
		var errs, requests, waits int64
		p99 := 0.0
		for _, r := range v.Reps {
			for c, n := range r.Errors {
				classes = append(classes, fmt.Sprintf("%s %d", c, n))
				errs += n
			}
			sort.Strings(classes)
			requests += r.Requests
			waits += r.PoolWaits
			p99 = max(p99, r.P99)
			t.Logf("%s rep %d: %d requests, %d ok, errors %v, p99 %.3fs, pool waits %d", v.Key, r.Rep, r.Requests, r.OK, r.Errors, r.P99, r.PoolWaits)
		}
		// The runner's rule, checked from outside: failures beyond the threshold flag
		// the variant, with the classes in its reason; no failure is hidden.
		failing := requests == 0 || float64(errs)/float64(requests) > res.Settings.MaxErrorRate
		switch {
		case failing && v.Valid:
			t.Errorf("%s: %d of %d requests failed and it is not flagged", v.Key, errs, requests)
		case failing && !strings.Contains(v.InvalidReason, strings.Fields(classes[0])[0]):
			t.Errorf("%s: reason %q does not name the error classes %v", v.Key, v.InvalidReason, classes)
		case !failing && !v.Valid:
			t.Errorf("%s: flagged without failures: %s", v.Key, v.InvalidReason)
		}
		// A variant that answered everything but only after queueing is valid and
		// flagged with the saturation verdict its slices earn (runners/saturation).
		verdict := saturation.JudgeAll(v.SaturationSummaries())
		saturated := slices.ContainsFunc(v.Flags, saturation.IsFlag)
		if !failing && verdict.Marked() != saturated {
			t.Errorf("%s: verdict %q, but flags are %q", v.Key, verdict.Flag(), v.Flags)
		}
		switch {
		case failing:
			flagged++
			outcome = append(outcome, fmt.Sprintf("%s pool %d invalid: %s of %d", v.Lang, v.Pool, strings.Join(classes, ", "), requests))
		case saturated:
			flagged++
			outcome = append(outcome, fmt.Sprintf("%s pool %d: all %d ok but queued (p99 %.1fs, %d pool waits): flagged %s", v.Lang, v.Pool, requests, p99, waits, verdict.State))
		default:
			outcome = append(outcome, fmt.Sprintf("%s pool %d: all %d ok (p99 %.1fs, %d pool waits), not flagged", v.Lang, v.Pool, requests, p99, waits))
		}
	}
	if flagged < len(res.Variants) {
		t.Errorf("%d of %d variants flagged at %d connections: every one should be invalid or saturated past capacity", flagged, len(res.Variants), conns)
	}
	if code == 0 {
		t.Error("exit status 0 with variants past capacity")
	}
	p.oneErrorLine(`variants invalid`)
	table.Add(Row{"far past capacity", fmt.Sprintf("%d new connections/request (keepalive off) vs Go pool 1, PHP pool 4", conns),
		fmt.Sprintf("ended in %.0fs, exit %d; %s", took.Seconds(), code, strings.Join(outcome, "; ")),
		left, fmt.Sprintf("%d reps (kept, flagged)", reps)})
}
