package chaos

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/results"
)

const (
	goRaw  = "^lang=go/layer=raw/stmt=interpolate/conn=persistent/"
	phpRaw = "^lang=php/layer=raw/stmt=interpolate/conn=persistent/"
	// The resident worker server's raw variant, in the quick preset.
	phpWorkerRaw = "^lang=php/server=worker/layer=raw/stmt=interpolate/conn=persistent/"
)

// runArgs are the small settings every scenario run uses. The pool check after a run
// is left out: the faults are in the measured run, and the check is a run of its own
// (runners/cmd/dbbench's TestPoolCheck).
func runArgs(out, variants string, extra ...string) []string {
	return append([]string{"run", "--preset", "smoke", "--variants", variants, "--profile=false", "--pool-check=false",
		"--duration", "1s", "--warmup", "300ms", "--reps", "2", "--rows", "1000", "--out", out}, extra...)
}

func variant(res *results.Run, lang string) *results.Variant {
	for _, v := range res.Variants {
		if v.Lang == lang {
			return v
		}
	}
	return nil
}

func repCount(res *results.Run) int {
	n := 0
	for _, v := range res.Variants {
		n += len(v.Reps)
	}
	return n
}

// hit checks what a fault injected at mark (proc.freeze) did to the slices of lang's
// variant ("" for every language; the scenarios run one variant per language, so a
// phase's slice n is its variant's repetition n). The fault hits the slice under way when
// it came, the last one printed before mark, or, when it came after that slice had been
// measured, the next one: that slice makes its variant invalid and is the last of lang
// measured; every slice before it is kept, clean. hit returns the variant and the slice
// hit; nil when the fault came after lang's last slice and so hit none.
//
// targetDied, when not zero, is when the fault killed lang's target: a slice kept must
// then have ended before it, as the counters read after its window need the target.
// (A database that dies in the window's last moments may leave it valid: too few
// requests fail.)
func hit(t *testing.T, p *proc, mark string, res *results.Run, lang string, targetDied time.Time) (*results.Variant, int) {
	t.Helper()
	before, after := p.slicesAround(mark, lang)
	if len(before) == 0 {
		t.Fatalf("no slice printed before %q", mark)
	}
	var v *results.Variant
	for _, x := range res.Variants {
		if (lang != "" && x.Lang != lang) || x.Valid {
			continue
		}
		if v != nil {
			t.Errorf("%s and %s both invalid: one fault hits one slice", v.Key, x.Key)
		}
		v = x
	}
	t.Logf("fault after %v; then %v; invalid: %v", before[len(before)-1], after, v != nil)
	k := 0
	switch {
	case v == nil && len(after) > 0:
		t.Errorf("%v began after the fault and nothing was marked invalid", after[0])
	case v == nil:
		// The fault came after the last slice had been measured: nothing to mark.
	case len(after) > 1:
		t.Errorf("%v measured after the fault: the run should have gone no further than %v", after[1:], after[0])
	default:
		m := regexp.MustCompile(`^slice (\d+): `).FindStringSubmatch(v.InvalidReason)
		if m == nil {
			t.Errorf("%s: reason %q names no slice", v.Key, v.InvalidReason)
			break
		}
		k, _ = strconv.Atoi(m[1])
		want := before[len(before)-1] // under way at the fault
		if len(after) == 1 {
			want = after[0] // the fault came between two slices
		}
		if got := (sliceRef{v.Lang, k}); got != want {
			t.Errorf("%s invalid at %v, but the fault came during or just before %v", v.Key, got, want)
		}
		if n := len(v.Reps); n != k && n != k-1 {
			t.Errorf("%s: %d slices recorded, the fault hit slice %d", v.Key, n, k)
		}
	}
	// Every other slice, all of them before the fault, is kept, clean.
	byLang := map[string]*results.Variant{}
	for _, x := range res.Variants {
		if lang == "" || x.Lang == lang {
			byLang[x.Lang] = x
		}
	}
	for _, s := range before {
		if x := byLang[s.lang]; x != nil && !(x == v && s.n == k) && len(x.Reps) < s.n {
			t.Errorf("%v, measured before the fault, is not kept: %s has %d slices", s, x.Key, len(x.Reps))
		}
	}
	for _, x := range byLang {
		for i, r := range x.Reps {
			if x == v && r.Rep == k {
				continue
			}
			if r.Rep != i+1 || r.Errors != nil {
				t.Errorf("%s: slice %d, measured before the fault, is not kept clean: %+v", x.Key, i+1, r)
			}
			end := r.Started.Add(time.Duration(r.Seconds * float64(time.Second)))
			if !targetDied.IsZero() && !end.Before(targetDied) {
				t.Errorf("%s: slice %d measured until %v, after its target died at %v, and kept as valid",
					x.Key, r.Rep, end.Format(time.StampMicro), targetDied.Format(time.StampMicro))
			}
		}
	}
	return v, k
}

// 1. The database is killed with SIGKILL during a measured slice.
func TestDatabaseDies(t *testing.T) {
	tmp := newTmp(t)
	out := filepath.Join(tmp, "run")
	p := dbbench(t, tmp, runArgs(out, goRaw+"|"+phpRaw)...)
	if !p.waitFor(`^\[go slice 2\]`, 90*time.Second) {
		t.Fatalf("never reached Go's slice 2:\n%s", p.errText())
	}
	const mark = "chaos: SIGKILL mariadbd"
	p.inject(mark, func() int { return descendant(p.cmd.Process.Pid, "mariadbd") })
	code := p.wait(60 * time.Second)
	res, reps := written(t, out)
	left := leftovers(t, tmp, nil)
	if res == nil {
		t.Fatal("no results.json")
	}
	v, k := hit(t, p, mark, res, "", time.Time{})
	line := "(none)"
	switch {
	case code != 0:
		line = p.oneErrorLine(`run failed: the database (died|stopped answering)`)
		if res.Status != "failed" {
			t.Errorf("status %q, want failed", res.Status)
		}
	case v != nil:
		t.Errorf("exit status 0 after the database died during %s slice %d", v.Lang, k)
	default: // the test got there after the last slice: the run may end as if nothing happened
		if res.Status != "complete" {
			t.Errorf("exit status 0, status %q", res.Status)
		}
	}
	outcome := fmt.Sprintf("exit %d, %q; ", code, trim(line, 70))
	if v != nil {
		outcome += fmt.Sprintf("%s slice %d invalid: %s", v.Lang, k, trim(v.InvalidReason, 50))
	} else {
		outcome += "came after the last slice: none invalid"
	}
	table.Add(Row{"database dies", "SIGKILL mariadbd in slice 2 (Go raw)", outcome, left,
		fmt.Sprintf("%d slices (results.json, bench.txt whole)", reps)})
}

// 2. A target is killed: the Go server in its slice 1, the php-fpm master in PHP's slice 2.
func TestTargetDies(t *testing.T) {
	tmp := newTmp(t)
	out := filepath.Join(tmp, "run")
	p := dbbench(t, tmp, runArgs(out, goRaw+"|"+phpRaw)...)
	pid := p.cmd.Process.Pid
	if !p.waitFor(`^\[go slice 1\]`, 90*time.Second) {
		t.Fatalf("never reached Go's slice 1:\n%s", p.errText())
	}
	const goMark, phpMark = "chaos: SIGKILL gotarget", "chaos: SIGKILL php-fpm master"
	goDied := p.inject(goMark, func() int { return descendant(pid, "gotarget") })
	if !p.waitFor(`^\[php slice 2\]`, 60*time.Second) {
		t.Fatalf("never reached PHP's slice 2:\n%s", p.errText())
	}
	phpDied := p.inject(phpMark, func() int {
		for _, q := range processes() { // the master is dbbench's child; its workers are its own
			if q.ppid == pid && strings.HasPrefix(q.comm, "php-fpm") && q.state != "Z" {
				return q.pid
			}
		}
		return 0
	})
	code := p.wait(60 * time.Second)
	res, reps := written(t, out)
	left := leftovers(t, tmp, nil)
	if res == nil {
		t.Fatal("no results.json")
	}
	gov, goSlice := hit(t, p, goMark, res, "go", goDied)
	phpv, phpSlice := hit(t, p, phpMark, res, "php", phpDied)
	// A target's death hits its own variant only, and the run goes on to the end.
	invalid := 0
	for _, v := range res.Variants {
		if !v.Valid {
			invalid++
		}
	}
	line := "(none)"
	switch {
	case invalid > 0:
		line = p.oneErrorLine(fmt.Sprintf(`%d of 2 variants invalid`, invalid))
		if code == 0 {
			t.Error("exit status 0 with invalid variants")
		}
	case code != 0:
		t.Errorf("exit status %d with every variant valid:\n%s", code, p.errText())
	}
	if res.Status != "complete" {
		t.Errorf("status %q: the run should go on past a dead target", res.Status)
	}
	outcome := func(v *results.Variant, k int) string {
		if v == nil {
			return "came after its last slice: valid"
		}
		return fmt.Sprintf("slice %d invalid: %s", k, trim(v.InvalidReason, 50))
	}
	table.Add(Row{"target dies (Go)", "SIGKILL gotarget in slice 1",
		"run goes on; go " + outcome(gov, goSlice), left, fmt.Sprintf("%d slices in all", reps)})
	table.Add(Row{"target dies (PHP)", "SIGKILL php-fpm master in slice 2",
		fmt.Sprintf("exit %d, %q; php %s", code, trim(line, 40), outcome(phpv, phpSlice)), left,
		fmt.Sprintf("php slices before kept (%d slices in all)", reps)})
}

// 2b. One process of PHP's resident worker server is killed with SIGKILL once PHP's
// slice 1 has begun: its master forks it again, so the variant recovers (the slice that
// lost the requests in flight may be marked), or it is marked invalid; either way the
// run ends complete and nothing is left running. Where in the run the kill lands (the
// slice's lead-in, its measured window, a later slice) changes which of these it is,
// and each is checked, so the kill comes as soon as the slice has begun.
func TestResidentWorkerDies(t *testing.T) {
	tmp := newTmp(t)
	out := filepath.Join(tmp, "run")
	args := runArgs(out, phpWorkerRaw)
	args[2] = "quick" // smoke has no resident workers
	p := dbbench(t, tmp, args...)
	pid := p.cmd.Process.Pid
	if !p.waitFor(`^\[php slice 1\]`, 90*time.Second) {
		t.Fatalf("never reached PHP's slice 1:\n%s", p.errText())
	}
	const mark = "chaos: SIGKILL a resident worker"
	killed := !p.inject(mark, func() int { return residentWorker(pid) }).IsZero()
	code := p.wait(60 * time.Second)
	res, reps := written(t, out)
	left := leftovers(t, tmp, nil)
	if res == nil {
		t.Fatal("no results.json")
	}
	v := variant(res, "php")
	switch {
	case res.Status != "complete":
		t.Errorf("status %q: the run should end complete", res.Status)
	case v.Valid && (code != 0 || len(v.Reps) < 2):
		t.Errorf("valid after its worker died, but exit %d with %d slices", code, len(v.Reps))
	case !v.Valid && (code == 0 || v.InvalidReason == ""):
		t.Errorf("invalid (%q) but exit %d", v.InvalidReason, code)
	}
	if before, _ := p.slicesAround(mark, "php"); !killed && len(before) < len(v.Reps) {
		t.Errorf("no resident worker to kill at %v, with PHP slices still to measure", before[len(before)-1])
	}
	outcome := "recovers: valid"
	if !v.Valid {
		outcome = "invalid: " + trim(v.InvalidReason, 60)
	}
	if !killed {
		outcome = "came after the last slice: valid"
	}
	table.Add(Row{"resident worker dies (PHP)", "SIGKILL one worker process in slice 1",
		fmt.Sprintf("exit %d; %s", code, outcome), left, fmt.Sprintf("%d slices in all", reps)})
}

// residentWorker is a worker process of the worker server under dbbench (pid), or 0: a
// php process whose parent, the master, is dbbench's child.
func residentWorker(pid int) int {
	all := processes()
	for _, q := range all {
		master, ok := all[q.ppid]
		if ok && master.ppid == pid && strings.HasPrefix(q.comm, "php") && strings.HasPrefix(master.comm, "php") && q.state != "Z" {
			return q.pid
		}
	}
	return 0
}

// 3. SIGINT or SIGTERM at moments spread over a run's phases.
func TestInterrupt(t *testing.T) {
	type point struct {
		phase string
		after string // stderr line (or "stdout:" + text) that opens the phase
		delay time.Duration
		sig   syscall.Signal
	}
	phases := []struct{ name, after string }{
		{"provisioning", `^provisioning `},
		{"loading", `^embedded mariadbd pid`},
		{"verify", `^\[check 1/1\]`},
		{"round trips", `^\[check 1/1\]`},
		{"measuring", `^\[go slice 1\]`},
		{"reporting", "stdout:slices  req/s"},
	}
	rng := rand.New(rand.NewPCG(8, 20261122))
	var points []point
	for _, ph := range phases {
		for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
			for k := 0; k < 2; k++ {
				var d time.Duration
				switch ph.name {
				case "round trips":
					d = 150*time.Millisecond + time.Duration(rng.IntN(250))*time.Millisecond
				case "measuring":
					d = time.Duration(rng.IntN(1300)) * time.Millisecond
				case "reporting":
					d = time.Duration(rng.IntN(30)) * time.Millisecond
				default:
					d = time.Duration(rng.IntN(40)) * time.Millisecond
				}
				points = append(points, point{ph.name, ph.after, d, sig})
			}
		}
	}
	if !full { // the shortened form: one point in four phases
		points = []point{points[0], points[9], points[16], points[22]}
	}
	var whole, left, kept, interrupted int
	for i, pt := range points {
		tmp := newTmp(t)
		out := filepath.Join(tmp, "run")
		p := dbbench(t, tmp, runArgs(out, goRaw)...)
		var reached bool
		if strings.HasPrefix(pt.after, "stdout:") {
			want := strings.TrimPrefix(pt.after, "stdout:")
			for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
				if strings.Contains(p.outText(), want) {
					reached = true
					break
				}
			}
		} else {
			reached = p.waitFor(pt.after, 90*time.Second)
		}
		if !reached {
			t.Errorf("point %d (%s): phase never reached:\n%s", i, pt.phase, p.errText())
		}
		time.Sleep(pt.delay)
		p.signal(pt.sig)
		code := p.wait(60 * time.Second)
		res, reps := written(t, out)
		n := leftovers(t, tmp, nil)
		left += n
		kept += reps
		if res != nil && !t.Failed() {
			whole++
		}
		if code != 0 {
			interrupted++
			p.oneErrorLine(`run interrupted`)
			if res != nil && res.Status != "interrupted" {
				t.Errorf("point %d (%s): status %q after %v", i, pt.phase, res.Status, pt.sig)
			}
		}
		t.Logf("point %d: %v %s+%v: exit %d, %d slices kept, %d left", i, pt.sig, pt.phase, pt.delay, code, reps, n)
	}
	table.Add(Row{"interrupted", fmt.Sprintf("SIGINT/SIGTERM at %d points over 6 phases", len(points)),
		fmt.Sprintf("%d interrupted (1 line each), %d finished first; %d/%d runs whole", interrupted, len(points)-interrupted, whole, len(points)),
		left, fmt.Sprintf("%d slices over all points", kept)})
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// cause is an error line without the CLI's closing pointer to the run directory.
func cause(line string) string {
	for _, tail := range []string{"; the ", "; nothing was measured yet"} {
		if i := strings.Index(line, tail); i >= 0 && strings.Contains(line[i:], "measured") {
			return line[:i]
		}
	}
	return line
}

// tail keeps the end of s, where an error line names its cause.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
