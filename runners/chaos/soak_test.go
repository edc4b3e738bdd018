package chaos

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/soak"
)

// 8. A soak interrupted in the middle keeps the series measured so far, writes its
// report, says how many samples it kept, and leaves nothing running.
func TestSoakInterrupted(t *testing.T) {
	type point struct {
		phase, after string
		times        int // how many lines after matches before the delay
		delay        time.Duration
		sig          syscall.Signal
		samples      bool // samples must have been kept
	}
	// Soaking, the signal comes after the second sample kept (its progress line), not a
	// fixed time after the soak began: on a busy machine a sample that falls behind is
	// skipped, and 7 s once held a single sample.
	points := []point{{"soaking", `^\[soak sample \d+ of`, 2, time.Second, syscall.SIGINT, true}}
	if full {
		points = append(points,
			point{"soaking", `^\[soak sample \d+ of`, 2, 0, syscall.SIGTERM, true},
			point{"capacity", `^soak: measuring capacity`, 1, time.Second, syscall.SIGINT, false},
			point{"targets starting", `^soak: provisioning`, 1, 1500 * time.Millisecond, syscall.SIGTERM, false})
	}
	var left, kept, whole int
	for i, pt := range points {
		tmp := newTmp(t)
		out := filepath.Join(tmp, "soak")
		p := dbbench(t, tmp, "soak", "--variants",
			"lang=go/layer=raw/stmt=prepare/conn=persistent,lang=php/layer=raw/stmt=prepare/conn=persistent",
			"--pools", "go=4,php=2", "--duration", "2m", "--interval", "2s", "--capacity-warmup", "1s",
			"--capacity-time", "3s", "--rows", "1000", "--out", out)
		for range pt.times {
			if !p.waitFor(pt.after, 90*time.Second) {
				t.Fatalf("point %d: %s never reached:\n%s", i, pt.phase, p.errText())
			}
		}
		time.Sleep(pt.delay)
		p.signal(pt.sig)
		code := p.wait(60 * time.Second)
		line := p.oneErrorLine(`soak interrupted: .*; the \d+ samples measured are kept in `)
		if code == 0 {
			t.Errorf("point %d: exit status 0 after %v", i, pt.sig)
		}
		f, err := soak.Read(out)
		if err != nil {
			t.Errorf("point %d: soak.json: %v", i, err)
		} else {
			whole++
			kept += f.Samples
			if f.Status != "interrupted" {
				t.Errorf("point %d: status %q", i, f.Status)
			}
			if pt.samples && f.Samples < 2 {
				t.Errorf("point %d: %d samples kept, after the second was said to be", i, f.Samples)
			}
			for _, v := range f.Variants {
				for _, s := range v.Series {
					if s.Verdict == nil || (s.Name == "rss" && len(s.Points) != f.Samples) {
						t.Errorf("point %d: %s %s: %d points of %d samples, verdict %v", i, v.Key, s.Name, len(s.Points), f.Samples, s.Verdict)
					}
				}
			}
			if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
				t.Errorf("point %d: no report: %v", i, err)
			}
		}
		n := leftovers(t, tmp, nil)
		left += n
		t.Logf("point %d: %v in %s +%v: exit %d, %q, %d left", i, pt.sig, pt.phase, pt.delay, code, line, n)
	}
	table.Add(Row{"soak interrupted", fmt.Sprintf("SIGINT/SIGTERM at %d points of a 2-minute soak", len(points)),
		fmt.Sprintf("%d interrupted, 1 line each; %d/%d soak.json whole, judged, reported", len(points), whole, len(points)),
		left, fmt.Sprintf("%d samples over all points", kept)})
}
