package precise

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestSleepUntilNeverWakesEarly: a send or a forwarded chunk must not go before its time.
func TestSleepUntilNeverWakesEarly(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var nilTimer *Timer
	for _, tm := range []*Timer{p, nilTimer} {
		for i := range 200 {
			at := time.Now().Add(time.Duration(50+i) * time.Microsecond)
			tm.SleepUntil(at)
			if now := time.Now(); now.Before(at) {
				t.Fatalf("woke %v early (nil timer: %v)", at.Sub(now), tm == nil)
			}
		}
	}
}

func TestSleepUntilThePastReturnsAtOnce(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	done := make(chan struct{})
	go func() { p.SleepUntil(time.Now().Add(-time.Hour)); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a moment an hour ago was waited for")
	}
}

// TestSleeperHoldsNoP is why the package exists: a goroutine waiting in SleepUntil is
// parked on the network poller ("IO wait"), not in a system call that keeps its P, as
// nanosleep would ("syscall") for the whole wait. Setting the timer and the first read
// are brief system calls too, so a state other than IO wait only counts at the end,
// when IO wait was never seen.
func TestSleeperHoldsNoP(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	wake := time.Now().Add(500 * time.Millisecond)
	done := make(chan struct{})
	go func() { sleeperMark(p, wake); close(done) }()
	defer func() { <-done }()
	seen := map[string]bool{}
	for time.Now().Before(wake) {
		if state, ok := sleeperState(); ok {
			if strings.HasPrefix(state, "IO wait") {
				return
			}
			seen[state] = true
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatalf("the sleeping goroutine was never parked on the poller (IO wait); its states: %v", seen)
}

// sleeperMark is a frame to find the sleeper's goroutine by in a stack dump.
//
//go:noinline
func sleeperMark(p *Timer, t time.Time) { p.SleepUntil(t) }

// sleeperState is the state of the goroutine inside sleeperMark.
func sleeperState() (string, bool) {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if !strings.Contains(g, "precise.sleeperMark") {
			continue
		}
		head, _, _ := strings.Cut(g, "\n")
		_, state, ok := strings.Cut(head, "[")
		return strings.TrimSuffix(state, "]:"), ok
	}
	return "", false
}
