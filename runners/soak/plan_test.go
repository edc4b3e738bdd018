package soak

import (
	"strings"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
)

func loadMatrix(t *testing.T) *matrix.Matrix {
	t.Helper()
	m, err := matrix.Load("../matrix.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The default variants come from the matrix: every database layer of every server with
// prepare (or the first mode it has) and persistent connections, plus each language's
// baseline per request.
func TestDefaultVariantsFromTheMatrix(t *testing.T) {
	m := loadMatrix(t)
	pools, err := ParsePools(m, "")
	if err != nil {
		t.Fatal(err)
	}
	vs, err := DefaultVariants(m, pools, m.DefaultDB())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, v := range vs {
		keys = append(keys, v.Key())
	}
	var want []string
	for _, ln := range m.LangNames() {
		l := m.Langs[ln]
		for _, server := range l.ServerNames() {
			for _, name := range l.LayerNames() {
				if !l.Layers[name].DB || !m.Reads(l.Layers[name], m.DefaultDB()) {
					continue
				}
				found := false
				for _, k := range keys {
					if strings.HasPrefix(k, "lang="+ln+"/server="+server+"/layer="+name+"/") && strings.Contains(k, "/conn=persistent/") {
						found = true
					}
				}
				if !found {
					t.Errorf("no persistent variant of %s/%s/%s in %v", ln, server, name, keys)
				}
			}
		}
		want = append(want, "lang="+ln+"/server="+l.DefaultServer()+"/layer="+l.Baseline+"/stmt=prepare/conn=per-request/")
	}
	for _, w := range want {
		found := false
		for _, k := range keys {
			found = found || strings.HasPrefix(k, w)
		}
		if !found {
			t.Errorf("no per-request baseline %s… in %v", w, keys)
		}
	}
	// Spot checks against today's matrix: prepare where offered, bun's only mode where
	// not, the pools of DefaultPools.
	for _, k := range []string{
		"lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=16",
		"lang=go/server=nethttp/layer=bun/stmt=interpolate/conn=persistent/pool=16",
		"lang=php/server=fpm/layer=eloquent/stmt=prepare/conn=persistent/pool=4",
		"lang=go/server=nethttp/layer=raw/stmt=prepare/conn=per-request/pool=16",
	} {
		if !strings.Contains(strings.Join(keys, " "), k) {
			t.Errorf("default variants lack %s: %v", k, keys)
		}
	}
	for _, k := range keys {
		if strings.Contains(k, "layer=hello") {
			t.Errorf("a layer without database among the defaults: %s", k)
		}
	}
}

func TestParsePoolsAndVariants(t *testing.T) {
	m := loadMatrix(t)
	pools, err := ParsePools(m, "go=8;php=2")
	if err != nil || pools["go"] != 8 || pools["php"] != 2 {
		t.Fatalf("ParsePools(go=8;php=2) = %v, %v", pools, err)
	}
	pools, err = ParsePools(m, "php=6")
	if err != nil || pools["go"] != 16 || pools["php"] != 6 {
		t.Fatalf("ParsePools(php=6) = %v, %v; want go's default kept", pools, err)
	}
	for _, bad := range []struct{ in, want string }{
		{"rust=4", `unknown lang "rust"`}, {"go=0", "positive integer"}, {"go", "want lang=N"}, {"go=x", "positive integer"},
	} {
		if _, err := ParsePools(m, bad.in); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParsePools(%q) = %v, want an error with %q", bad.in, err, bad.want)
		}
	}
	vs, err := ParseVariants(m, "lang=go/layer=raw/stmt=prepare/conn=persistent, lang=php/layer=raw/stmt=prepare/conn=per-request/pool=3", pools, m.DefaultDB())
	if err != nil || len(vs) != 2 || vs[0].Pool != 16 || vs[0].Server != "nethttp" || vs[1].Pool != 3 {
		t.Fatalf("ParseVariants = %v, %v", vs, err)
	}
	for _, bad := range []struct{ in, want string }{
		{"lang=go/layer=nope/stmt=prepare/conn=persistent", `no layer "nope"`},
		{"lang=go/layer=raw/stmt=prepare/conn=persistent,lang=go/layer=raw/stmt=prepare/conn=persistent", "given twice"},
		{" , ", "no variant given"},
		{"lang=go/layer=bun/stmt=prepare/conn=persistent", "excluded"},
	} {
		if _, err := ParseVariants(m, bad.in, pools, m.DefaultDB()); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("ParseVariants(%q) = %v, want an error with %q", bad.in, err, bad.want)
		}
	}
}

func TestDefaultWarmup(t *testing.T) {
	for _, c := range []struct{ d, want time.Duration }{
		{time.Hour, 6 * time.Minute},         // a tenth
		{5 * time.Minute, time.Minute},       // raised to a minute
		{3 * time.Minute, time.Minute},       // still two thirds left
		{90 * time.Second, 30 * time.Second}, // a third: a minute would leave too little
	} {
		if got := DefaultWarmup(c.d); got != c.want {
			t.Errorf("DefaultWarmup(%v) = %v, want %v", c.d, got, c.want)
		}
	}
}

func TestCheckRefusesBadOptions(t *testing.T) {
	good := Options{Variants: []matrix.Variant{{Lang: "go"}}, Duration: time.Minute, Interval: 10 * time.Second,
		CapacityTime: time.Second, RateFraction: 0.8}
	if err := good.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		edit func(*Options)
		want string
	}{
		{func(o *Options) { o.Duration = 0 }, "--duration must be positive"},
		{func(o *Options) { o.Duration = -time.Second }, "--duration must be positive"},
		{func(o *Options) { o.Interval = 2 * time.Minute }, "longer than --duration"},
		{func(o *Options) { o.Warmup = time.Minute }, "leaves nothing"},
		{func(o *Options) { o.RateFraction = 1.5 }, "--rate-fraction"},
		{func(o *Options) { o.Variants = nil }, "no variant"},
	} {
		o := good
		c.edit(&o)
		if err := o.Check(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check = %v, want %q", err, c.want)
		}
	}
}

// A soak's samples, on the grid sampleUntil keeps (the middle of each window): the
// hour's 360 of the committed sample, and a 90-s soak's 30; the progress line says how
// many are done and the time until the fixed end.
func TestPlannedSamplesAndProgress(t *testing.T) {
	for _, c := range []struct {
		d, iv time.Duration
		want  int
	}{{time.Hour, 10 * time.Second, 360}, {90 * time.Second, 3 * time.Second, 30}, {10 * time.Second, 10 * time.Second, 1}} {
		if got := plannedSamples(c.d, c.iv); got != c.want {
			t.Errorf("plannedSamples(%v, %v) = %d, want %d", c.d, c.iv, got, c.want)
		}
	}
	if got, want := progressLine(12, 360, 115*time.Second, 58*time.Minute+5*time.Second),
		"[soak sample 12 of 360] 1m55s spent, about 58m5s left"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// A sample is taken on time or a little late, never between two windows nor after the
// soak's end: the last ten samples of a busy 90-s soak were once taken in one burst
// after the load stopped, and the planted leak's descriptors read flat across them.
func TestALateSampleIsSkipped(t *testing.T) {
	start, iv := time.Unix(1000, 0), 3*time.Second
	end := start.Add(90 * time.Second)
	at := start.Add(sampleAt(10, iv)) // 31.5 s, the middle of window 10 (30 s to 32.85 s)
	for _, c := range []struct {
		now  time.Time
		want bool
		why  string
	}{
		{at, true, "on time"},
		{at.Add(iv / 4), true, "a quarter interval late: still inside its window"},
		{at.Add(iv/4 + time.Millisecond), false, "later: near the gap between windows"},
		{at.Add(2 * iv), false, "two intervals late: in another window"},
		{end, false, "at the end: the load has stopped"},
	} {
		if got := sampleDue(at, c.now, end, iv); got != c.want {
			t.Errorf("%s: sampleDue = %v, want %v", c.why, got, c.want)
		}
	}
	// The last sample's time, late by a second, is past the end: not taken.
	last := start.Add(sampleAt(plannedSamples(90*time.Second, iv)-1, iv))
	if sampleDue(last, last.Add(time.Second), end, iv) {
		t.Errorf("the last sample, a second late at %v, is taken after the end at %v", last.Add(time.Second).Sub(start), end.Sub(start))
	}
}
