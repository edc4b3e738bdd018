package run

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"dbbench/runners/results"
)

func TestTimeLeft(t *testing.T) {
	for _, c := range []struct {
		spent         time.Duration
		done, planned int
		estimate      time.Duration
		want          string
	}{
		{0, 0, 96, 0, "?"}, // no pace, no estimate
		{0, 0, 96, 2*time.Minute + 10*time.Second, "2m10s"}, // no pace: the plan's estimate
		{30 * time.Second, 10, 40, time.Hour, "1m30s"},      // 3 s a step, 30 steps left
		{time.Minute, 8, 8, 0, "0s"},                        // all done
	} {
		if got := TimeLeft(c.spent, c.done, c.planned, c.estimate); got != c.want {
			t.Errorf("TimeLeft(%v, %d, %d, %v) = %q, want %q", c.spent, c.done, c.planned, c.estimate, got, c.want)
		}
	}
}

// The first planned slice gives the time left from the plan's estimate of a slice; a
// run without a budget (a sweep's) says the time spent, not "of 0s"; a budgeted phase
// gives its plan's estimate beside the budget's bound; a line is never longer than a
// terminal's 120 characters.
func TestProgressLines(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b}
	p.planned("go", 1, 96, 0, 1350*time.Millisecond, "ceiling at 64 clients, round 1 of 2", "lang=go/…/pool=1")
	p.planned("go", 11, 96, 15*time.Second, 1350*time.Millisecond, "", "lang=go/…/pool=4")
	p.slice("php", 3, 4*time.Second, 0, -1, "0/2 decided", "raw/… +1 more")
	p.slice("php", 4, 5*time.Second, time.Minute, -1, "", "lang=php/…")
	p.slice("php", 5, 6*time.Second, time.Minute, 20*time.Second, "0/2 decided", strings.Repeat("fpm/raw/interpolate/persistent/8 ", 5))
	p.slice("php", 6, 7*time.Second, time.Minute, 2*time.Minute, "1/2 decided", "fpm/raw/interpolate/persistent/8")
	p.slice("php", 7, 70*time.Second, time.Minute, 3*time.Second, "1/2 decided", "fpm/raw/interpolate/persistent/8")
	want := "[go slice 1 of 96] 0s spent, about 2m10s left, ceiling at 64 clients, round 1 of 2: lang=go/…/pool=1\n" +
		"[go slice 11 of 96] 15s spent, about 2m9s left: lang=go/…/pool=4\n" +
		"[php slice 3] 4s spent, 0/2 decided: raw/… +1 more\n" +
		"[php slice 4] 5s spent, ≤55s left: lang=php/…\n" +
		"[php slice 5] 6s spent, about 20s left (≤54s), 0/2 decided: fpm/raw/interpolate/persistent/8 fpm/raw/interpolate/persis…\n" +
		// An estimate beyond the budget says the budget's bound.
		"[php slice 6] 7s spent, about 53s left (≤53s), 1/2 decided: fpm/raw/interpolate/persistent/8\n" +
		// Past the budget, the comparisons go on to their fewest pairs.
		"[php slice 7] 1m10s spent, about 3s left (past the budget), 1/2 decided: fpm/raw/interpolate/persistent/8\n"
	if b.String() != want {
		t.Errorf("progress lines:\n%s\nwant\n%s", b.String(), want)
	}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		if n := len([]rune(l)); n > maxLine {
			t.Errorf("a progress line of %d characters: %s", n, l)
		}
	}
}

// Without a budget, interleaved comparisons stop at their fewest pairs, one block each,
// so the phase knows its slices: two solos of 6 and 6 blocks. A budget or a walk does not.
func TestFewestIsPlannedOnlyWithoutABudget(t *testing.T) {
	solos := []*results.Variant{{}, {}}
	pairs := func(design string, budget time.Duration) *Pairs {
		r := &runner{o: Options{Pairing: Pairing{Design: design, MinPairs: 6}, Shape: Shape{Reps: 6}}}
		return &Pairs{p: &Phase{r: r, budget: budget}, edges: []*edge{{}, {}}}
	}
	if n := pairs(Interleave, 0).fewest(solos); n != 18 {
		t.Errorf("interleave without a budget: %d planned, want 2×6 + 6", n)
	}
	if n := pairs(Interleave, time.Minute).fewest(solos); n != 0 {
		t.Errorf("with a budget: %d planned, want 0 (not known)", n)
	}
	if n := pairs(Walk, 0).fewest(solos); n != 0 {
		t.Errorf("walk: %d planned, want 0 (not known)", n)
	}
}
