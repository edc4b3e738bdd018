package profile

import (
	"strings"
	"testing"
	"time"
)

// Two php-fpm children and nginx. Child 10 runs PHP at 1.000 s and 1.002 s and waits for
// the database at 1.001 s (a wall sample, no CPU there); child 11 burns CPU with no
// request profiled (php-fpm's own work).
func TestJoinCPUGivesEachCPUSampleTheNearestStack(t *testing.T) {
	wall := []TimedStack{
		{PID: 10, At: 1_000_000_000, Frames: []string{"index.php", "Illuminate\\Database\\Query\\Builder::where"}},
		{PID: 10, At: 1_001_000_000, Frames: []string{"index.php", "PDOStatement::execute"}},
		{PID: 10, At: 1_002_000_000, Frames: []string{"index.php", "json_encode"}},
	}
	cpu := []CPUSample{
		{PID: 10, Comm: "php-fpm8.2", At: 1_000_200_000, Weight: 1000},
		{PID: 10, Comm: "php-fpm8.2", At: 1_001_900_000, Weight: 1000},
		{PID: 11, Comm: "php-fpm8.2", At: 1_001_000_000, Weight: 1000},
		{PID: 10, Comm: "php-fpm8.2", At: 1_009_000_000, Weight: 1000}, // far from any: php-fpm's
		{PID: 12, Comm: "nginx", At: 1_000_000_000, Weight: 500},
	}
	p, share := JoinCPU(cpu, wall, 2*time.Millisecond)
	got := map[string]int64{}
	for _, s := range p.Stacks {
		got[strings.Join(s.Frames, ";")] = s.Weight
	}
	want := map[string]int64{
		"index.php;Illuminate\\Database\\Query\\Builder::where": 1000,
		"index.php;json_encode":                                 1000,
		FPMFrame:                                                2000,
		NginxFrame:                                              500,
	}
	if len(got) != len(want) {
		t.Errorf("stacks %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %d, want %d (all: %v)", k, got[k], w, got)
		}
	}
	if share != 0.5 { // 2000 of the 4000 ns of PHP processes' CPU found a stack
		t.Errorf("matched share %v, want 0.5", share)
	}
	if p.Total() != 4500 {
		t.Errorf("total %d, want every CPU sample's weight, 4500", p.Total())
	}
}

func TestReadPerfSamples(t *testing.T) {
	in := "        php-fpm8.2  4242 25000.123456789:    1003009 \n           nginx 17 25000.124000000:    998000\n"
	s, err := ReadPerfSamples(strings.NewReader(in), 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// A window keeps the samples taken in it: the first only.
	if w, err := ReadPerfSamples(strings.NewReader(in), 25000_000_000_000, 25000_124_000_000); err != nil || len(w) != 1 || w[0].PID != 4242 {
		t.Errorf("window [25000 s, 25000.124 s): %+v, %v; want the first sample", w, err)
	}
	if len(s) != 2 || s[0].PID != 4242 || s[0].Comm != "php-fpm8.2" || s[0].At != 25000123456789 || s[0].Weight != 1003009 ||
		s[1].Comm != "nginx" || s[1].PID != 17 {
		t.Errorf("samples %+v", s)
	}
	for _, bad := range []string{"php-fpm 12 x: 100\n", "12 1.0: 100\n", "php 12 1.0: -5\n"} {
		if _, err := ReadPerfSamples(strings.NewReader(bad), 0, 0); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

func TestReadTimed(t *testing.T) {
	s, err := ReadTimed(strings.NewReader("123 a;b;c\n456 a\n"), 7)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 || s[0].At != 123 || len(s[0].Frames) != 3 || s[1].PID != 7 {
		t.Errorf("stacks %+v", s)
	}
	if _, err := ReadTimed(strings.NewReader("abc a;b\n"), 7); err == nil {
		t.Error("a line without a time: want an error")
	}
}

// nginx's CPU is the HTTP server's; php-fpm's own outside a request, the runtime's.
func TestJoinedFramesHaveComponents(t *testing.T) {
	p := &Profile{Unit: "nanoseconds", Stacks: []Stack{{Frames: []string{NginxFrame}, Weight: 3}, {Frames: []string{FPMFrame}, Weight: 5}}}
	f, err := Fold(p, PHP)
	if err != nil {
		t.Fatal(err)
	}
	if f.Weights[HTTP] != 3 || f.Weights[Runtime] != 5 {
		t.Errorf("weights %v: want nginx 3 in HTTP server, php-fpm 5 in runtime", f.Weights)
	}
}
