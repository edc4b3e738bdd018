package soak

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/servers"
)

// fakeSoak is a soak as Run would have written it, interrupted after 20 minutes: one
// variant whose descriptors leak two a minute, everything else flat.
func fakeSoak() *File {
	f := &File{
		Schema: Schema, Status: "interrupted", Error: "soak interrupted: context canceled", Started: time.Unix(0, 0).UTC(),
		Settings: Settings{Mode: "concurrent", Duration: "1h0m0s", Interval: "10s", Warmup: "2m0s", WarmupSeconds: 120,
			CapacityWarmup: "5s", CapacityTime: "20s", RateFraction: 0.8, MaxConnections: 338, MaxPreparedStmtCount: 16382},
		Environment: map[string]string{"cpu-count": "2"},
		Database:    &Role{},
	}
	v := &Variant{
		Key:         "lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=16",
		Variant:     matrix.Variant{Lang: "go", Pool: 16},
		Connections: 32,
		Capacity:    &Capacity{QPS: 1000, P99: 0.02},
		Rate:        800,
	}
	f.Variants = []*Variant{v}
	for k := 0; k < 120; k++ {
		t := 5 + 10*float64(k)
		f.Samples++
		f.Database.addReading(t, servers.Reading{Name: "prepared_stmt_count", Label: "Prepared_stmt_count", Unit: "count", Value: float64(3 + k%4), Limit: "max_prepared_stmt_count", LimitValue: 16382, Held: true})
		f.Database.add("mariadbd_rss", t, float64(120<<20+(k%5)<<10))
		v.add("rss", t, float64(25<<20+(k%3)<<12))
		fds := v.add("fds", t, float64(60+k/3))
		fds.Limit = &Limit{Name: "ulimit -n (per process)", Value: 1024, Used: float64(60 + k/3)}
		v.addWindow(Window{T: t + 4, Seconds: 9.5, Offered: 800, Achieved: 799, Requests: 7600, OK: 7590,
			Errors: map[string]int64{"timeout": 5}, P99: 0.01 + float64(k%3)/1000})
	}
	return f
}

func TestReportPutsVerdictsFirstAndTheLeakAtTheTop(t *testing.T) {
	dir := t.TempDir()
	if err := fakeSoak().Write(dir); err != nil {
		t.Fatal(err)
	}
	f, err := WriteReport(dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != "interrupted" || f.Samples != 120 {
		t.Fatalf("read back: status %s, %d samples", f.Status, f.Samples)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	// The verdict table is the first section; its first row is the growing descriptors,
	// with the time to the limit: (1024 - 99) / (120/h) = 7.7 h.
	first := strings.Index(text, "\n## ")
	if !strings.HasPrefix(text[first:], "\n## Verdicts") {
		t.Fatalf("first section is not the verdicts:\n%s", text[first:first+80])
	}
	rows := strings.Split(text[first:], "\n| lang=")
	if len(rows) < 2 || !strings.Contains(rows[1], "open descriptors") || !strings.Contains(rows[1], "| grows |") || !strings.Contains(rows[1], "7.7 h") {
		t.Fatalf("first variant row is not the leaking descriptors with its time to the limit:\n%s", rows[1])
	}
	for _, want := range []string{
		"Interrupted: soak interrupted: context canceled. The 120 samples measured until then are kept",
		"1 of 7 series are flagged",
		"every variant is served at once",
		"the first 2m0s (warm-up) is excluded",
		"it rose by at least 1% of its median (memory)",
		"Memory and levels are judged only over 10m0s or more",
		"| lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=16 | 32 | 1000 | 20 ms | 800 | 99.9% | 540 of 820800 |",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if strings.Contains(text, "<svg") {
		t.Error("report.md holds a chart")
	}
	html, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	// One figure per role (the database, the variant), one panel per series: 2 and 5.
	page := string(html)
	if n := strings.Count(page, `<figure class="chart"`); n != 2 {
		t.Errorf("report.html has %d figures, want 2", n)
	}
	panels := 0
	for _, div := range strings.Split(page, `<div class="panels">`)[1:] {
		panels += strings.Count(div[:strings.Index(div, "</div>")], "<svg")
	}
	if panels != 7 {
		t.Errorf("report.html has %d chart panels, want 7", panels)
	}
}

func TestReadRefusesWhatIsNotASoak(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "holds no soak") {
		t.Fatalf("empty directory: %v", err)
	}
	os.WriteFile(filepath.Join(dir, FileName), []byte(`{"schema":"dbbench/results/v3"}`), 0o644)
	if _, err := Read(dir); err == nil || !strings.Contains(err.Error(), "want \"dbbench/soak/v1\"") {
		t.Fatalf("other schema: %v", err)
	}
}
