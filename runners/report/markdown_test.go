package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// expectedRatio is what the report must say of other's QPS against base's in
// pairedRun: the Hodges–Lehmann estimate of the per-slice ratios, computed here from
// the specs (the pace cancels in each pair).
func expectedRatio(t *testing.T, base, other int) stats.RatioEstimate {
	t.Helper()
	var ratios []float64
	for i := 1; i <= pairedSlices; i++ {
		b := pairedSpecs[base].qps * jitter(base+3, i)
		o := pairedSpecs[other].qps * jitter(other+3, i)
		ratios = append(ratios, o/b)
	}
	return hodgesLehmann(t, ratios)
}

// expectedCPURatio is the same for app CPU per request, which goes as 1/jitter.
func expectedCPURatio(t *testing.T, base, other int) stats.RatioEstimate {
	t.Helper()
	var ratios []float64
	for i := 1; i <= pairedSlices; i++ {
		b := pairedSpecs[base].cpuUS / jitter(base+3, i)
		o := pairedSpecs[other].cpuUS / jitter(other+3, i)
		ratios = append(ratios, o/b)
	}
	return hodgesLehmann(t, ratios)
}

func hodgesLehmann(t *testing.T, ratios []float64) stats.RatioEstimate {
	e, err := stats.PairedRatio(ratios)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func ci(e stats.RatioEstimate) string {
	return fmt.Sprintf("%.2f× [%.2f, %.2f]", e.Ratio, e.Lo, e.Hi)
}

func TestMarkdownAnswersComeFirst(t *testing.T) {
	md, err := Markdown(pairedRun(t))
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	lines := strings.Split(s, "\n")
	// The first screen: what comes before the first section.
	first := oneLine([]byte(s[:strings.Index(s, "<a id=")]))
	beego := expectedRatio(t, 2, 5)      // Beego ORM against database/sql, interpolate, persistent
	eloquent := expectedRatio(t, 10, 12) // Eloquent against PDO under php-fpm
	interp := expectedRatio(t, 1, 2)     // interpolate against prepare, database/sql
	perReq := expectedRatio(t, 2, 4)     // per-request against persistent, database/sql
	worker := expectedRatio(t, 10, 13)   // PDO under workers against php-fpm
	for _, want := range []string{
		"**[1. What a layer costs.](#q-layer)**",
		"an ORM keeps ([95% intervals](../../README.md#wilcoxon-interval), at interpolate/persistent) — Go: " + ci(expectedRatio(t, 2, 6)) + " (GORM) to " + ci(beego) + " (Beego ORM v2)",
		"(Beego ORM v2); PHP: ", "; builders and wrappers below.",
		"Eloquent " + ci(eloquent),
		"**[2. What a statement mode is worth.](#q-stmt)**",
		"Go database/sql " + ci(interp), "(3 → 1 [commands](../../README.md#commands): −Prepare −Execute −Close stmt +Query)",
		"**[3. What connections and the runtime cost.](#q-conn)**",
		"Go database/sql " + ci(perReq) + " at interpolate (1 → 3 commands: +Connect +Quit)",
		"; resident workers instead of php-fpm: PDO " + ci(worker),
		"![1. What a layer costs](report-charts/answer-q-layer.svg)",
		"Run of 2026-01-02, complete after 8m30s · preset test, 16 variants · Test CPU, 2 cores · embedded 10.11.19-MariaDB",
	} {
		if !strings.Contains(first, want) {
			t.Errorf("the first screen of report.md lacks %q:\n%s", want, first)
		}
	}
	// How much evidence stands behind an answer opens its section: the first screen
	// says the answers alone. The layer comparisons reached the target; each term links
	// to the glossary where first used.
	evidence := "6 comparisons in [pairs](../../README.md#pairs) of adjacent [slices](../../README.md#slice), 8 pairs each; " +
		"all reached the ±2% [target](../../README.md#precision-target); none [undecided](../../README.md#marks)."
	if strings.Contains(first, "6 comparisons in ") || !strings.Contains(oneLine([]byte(s[strings.Index(s, "## 1. What a layer costs"):])), evidence) {
		t.Errorf("the evidence line is not at the top of the layer section, or still on the first screen:\n%s", s)
	}
	// The limit: at most 10 list items before the first table.
	items := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "|") {
			break
		}
		if strings.HasPrefix(l, "- ") || strings.HasPrefix(l, "* ") {
			items++
		}
	}
	if items > 10 {
		t.Errorf("%d list items before the first table, want at most 10", items)
	}
	if strings.Contains(s, "not measured in pairs") {
		t.Errorf("a paired run is said to be unpaired")
	}
}

func TestMarkdownComparisonTables(t *testing.T) {
	md, err := Markdown(pairedRun(t))
	if err != nil {
		t.Fatal(err)
	}
	s := oneLine(md)
	beego := expectedRatio(t, 2, 5)
	for _, want := range []string{
		"**Go: each layer against database/sql at the same server, stmt, conn and pool**",
		"| layer (library, kind) | interpolate · persistent |",
		// Beego: QPS 0.90×, CPU 80/70, +10 µs, +42 allocs, +1.7 kB; the target reached.
		fmt.Sprintf("| orm (Beego ORM v2) | [QPS %.2f× ±%.1f%% ●](#c-layer-lang-go-server-nethttp-layer-orm-stmt-interpolate-conn-persistent-pool-8) · CPU %.2f× ",
			beego.Ratio, 100*beego.HalfWidth(), expectedCPURatio(t, 2, 5).Ratio),
		" µs, +42 allocs, +1.7 kB · 8 pairs |",
		// stmt: the column names the mode; the commands change; the target not reached.
		"| layer (library, kind) | interpolate | prepared |",
		"· 3 → 1 commands, 2 → 1 round trips · 8 pairs † |",
		"**PHP: each server against php-fpm, same layer, stmt, conn and pool**",
		"| layer (library, kind) | worker |",
		"† the comparison stopped at the end of its budget, before its intervals were within the ±2% target.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.md lacks %q:\n%s", want, s)
		}
	}
	// Each cell links to its sentence, which says the comparison in full.
	want := fmt.Sprintf(`- <a id="c-layer-lang-go-server-nethttp-layer-orm-stmt-interpolate-conn-persistent-pool-8"></a>orm (Beego ORM v2) against raw (database/sql + go-sql-driver/mysql) (Go, net/http, interpolate, persistent, pool 8): QPS %s (different: Hodges–Lehmann over 8 pairs, `, ci(beego))
	if !strings.Contains(s, want) {
		t.Errorf("report.md lacks the sentence %q", want)
	}
}

func TestMarkdownVariantsAndAppendix(t *testing.T) {
	r := pairedRun(t)
	r.Connections = map[string][]*results.ConnectCost{"mysql": {{Path: "caching_sha2_password, full, RSA key fetched", RoundTrips: 3,
		ServerCPU: 2.4e-3, ServerCPULo: 2.3e-3, ServerCPUHi: 2.5e-3, Latency: 3.3e-3, LatencyLo: 3.2e-3, LatencyHi: 3.4e-3, Connections: 600}}}
	md, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	s := oneLine(md)
	for _, want := range []string{
		"| lang | server | layer | stmt | conn | pool | QPS | p50 ms |",
		// Only counts that measure something: no PHP syscalls, no chunk-rounded peak.
		"| lang | server | layer | stmt | conn | pool | allocs/req | B alloc/req | GC cycles/req | PHP req peak kB | app read+write/req | app vcsw/req |",
		"| go | nethttp | gorm | interpolate | persistent | 8 | 110 | 4400 | 0.0010 | – | 4.0 | 2.00 |",
		"| php | fpm | orm | interpolate | persistent | 4 | – | – | – | – | – | 2.00 |",
		"| php | worker | orm | interpolate | persistent | 4 | – | – | – | 400 | – | 2.00 |",
		"Not shown: a PHP target's and mariadbd's system calls",
		"| go/nethttp/raw/prepare/persistent/pool=8 | Prepare 1, Execute 1, Close stmt 1 | 3 | 2 | 79 | 188 | – | – | yes |",
		"connects by mysql_native_password (1 round trip each)",
		"| mysql | caching_sha2_password, full, RSA key fetched | no | 3 | 2400 [2300, 2500] | 3300 [3200, 3400] | 600 |",
		"- go/nethttp/ent/interpolate/persistent/pool=8: verification: /users/abc answered 500, want 400",
		"1 variant was invalid and left out of every number",
		"[Yardstick](../../README.md#yardstick) (sha256 of 1 MiB), median of the trials at each reading: start 2.00 ms, after go 2.20 ms, end 2.10 ms. The slowest reading took 10% longer",
		"| pairing | design walk: each slice is 1s after a 150ms [lead-in](../../README.md#lead-in); precision ±2%, 6–60 pairs, budget 5m |",
		"Go under net/http answers without the database at 4",
		// The paired estimate and the medians' ratio, side by side and named.
		"app CPU per request 1.28× [1.27, 1.28] (different: Hodges–Lehmann over 8 pairs, 96.1% coverage); " +
			"+19 µs app CPU per request (85.2 against 66.7 µs, medians of all slices of each side, whose ratio is 1.28×)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.md lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "123456") || strings.Contains(s, "Stability across rounds") {
		t.Errorf("the invalid variant's QPS, or the rounds of an unpaired run, appear in a paired report")
	}
}

// A run made before pairs (results v1: no comparisons) is answered from each side's
// median, and says so.
func TestMarkdownUnpairedRun(t *testing.T) {
	md, err := Markdown(fakeRun(t, 6))
	if err != nil {
		t.Fatal(err)
	}
	s := oneLine(md)
	// orm/raw at prepare: medians 4025 against 5025.
	for _, want := range []string{
		"**This run was not measured in pairs:",
		fmt.Sprintf("lib-orm %.2f× [", 4025.0/5025),
		"comparisons of unpaired medians (this run was not measured in pairs).",
		"unpaired, n = 6",
		"ratio of unpaired medians, bootstrap interval, n = 6",
		"### Stability across rounds",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.md lacks %q:\n%s", want, s)
		}
	}
}

func TestMarkdownSaysWhenTooFewSlices(t *testing.T) {
	md, err := Markdown(fakeRun(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	s := oneLine(md)
	for _, want := range []string{
		"| go | nethttp | raw | prepare | persistent | 8 | 5005 ± ∞ (!1) |",
		"(!1) need >= 6 samples for confidence interval at level 0.95",
		"lib-orm 0.80× (no interval: 2 pairs)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.md lacks %q:\n%s", want, s)
		}
	}
}

func TestMarkdownProfile(t *testing.T) {
	r := pairedRun(t)
	withProfiles(r)
	md, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	s := oneLine(md)
	for _, want := range []string{
		"## Where the app CPU goes",
		// The components are scaled to the measured medians: the parts add up to the
		// table's +19 µs, +8.6 µs and +3.8 µs.
		"GORM (net/http, interpolate, persistent) costs +19 µs app CPU per request over database/sql (medians of the measured slices); " +
			"by its scaled profile, +13 µs in orm and +6 µs in reflect.",
		"Beego ORM v2 (net/http, interpolate, persistent) costs +8.6 µs app CPU per request over database/sql (medians of the measured slices); " +
			"by its scaled profile, +6.7 µs in orm, +3.4 µs in reflect and −1.5 µs in the other components together.",
		"squirrel (net/http, interpolate, persistent) costs +3.8 µs app CPU per request over database/sql (medians of the measured slices); " +
			"by its scaled profile, +4.5 µs in query building and −0.7 µs in the other components together.",
		"| go/nethttp/gorm/interpolate/persistent/pool=8 | [flame graph](profiles/gorm/flame.svg) | 70 µs, 0.82× the measured 85.2 µs | cpu: profiles/gorm/cpu.pprof |",
		"The profiled slices' own app CPU per request was Go under net/http 0.82–1.05× the measured slices' median",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.md lacks %q:\n%s", want, s)
		}
	}
	if md, _ := Markdown(pairedRun(t)); strings.Contains(string(md), "Where the app CPU goes") {
		t.Errorf("a run without profiles has a profile section")
	}
}

// A run that failed before measuring anything still gets a report that says so.
func TestReportOfAnEmptyRun(t *testing.T) {
	r := pairedRun(t)
	r.Status, r.Error, r.Comparisons = "failed", "database did not start", nil
	for _, v := range r.Variants {
		v.Reps = nil
	}
	md, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"No layer was measured against its language's raw driver",
		"**This run is failed: only what it measured is reported. Error: database did not start**",
		"No valid variant was measured.",
	} {
		if !strings.Contains(oneLine(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if _, err := HTML(r); err != nil {
		t.Fatal(err)
	}
}

// Answer 2 leads with what to set, in the language's own terms, when results.json
// carries them (matrix.yaml's modes), and the section says what to know before
// switching; without them (older runs) it lists the ratios as before.
func TestStmtAnswerSaysWhatToSet(t *testing.T) {
	r := pairedRun(t)
	if r.Langs["go"] == nil {
		t.Fatal("the paired run has no facts of Go")
	}
	r.Langs["go"].Modes = map[string]*results.ModeSetting{
		"interpolate": {Set: "set `interpolateParams=true`", Default: "false", Caveat: "not with SJIS"},
		"persistent":  {Set: "keep idle connections", Default: "2 idle", Caveat: "mind wait_timeout"},
	}
	md, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	s := oneLine(md)
	for _, want := range []string{
		"Throughput against a prepare per query — Go: set `interpolateParams=true` (default: false): 3 → 1 [commands](../../README.md#commands), 2 → 1 round trips; database/sql 1.49× [1.48, 1.49]",
		"Before switching: Go, interpolate: not with SJIS.",
		// Answer 3 the same way: what keeps connections pooled, then what a connection
		// per request costs; PHP, without the facts, as before.
		"Go: keep idle connections (default: 2 idle): a connection per request keeps database/sql " + ci(expectedRatio(t, 2, 4)) + ";",
		"PHP PDO ",
		"Before switching: Go, persistent: mind wait_timeout.",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.md lacks %q:\n%s", want, s[:min(len(s), 3000)])
		}
	}
}

// findings.csv holds the comparisons the report words, as numbers: one row per
// comparison, the same estimates.
func TestFindingsCSVHoldsTheReportsEstimates(t *testing.T) {
	r := pairedRun(t)
	b, err := FindingsCSV(r)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(r.Comparisons)+1 || strings.Join(rows[0][:4], ",") != "question,base,other,qps_ratio" {
		t.Fatalf("%d rows (want %d comparisons and a head): %q", len(rows), len(r.Comparisons), rows[0])
	}
	perReq := expectedRatio(t, 2, 4) // per-request against persistent, database/sql
	for _, row := range rows[1:] {
		if row[0] == "conn" && strings.Contains(row[2], "layer=raw/stmt=interpolate/conn=per-request") && strings.HasPrefix(row[1], "lang=go/") {
			got, _ := strconv.ParseFloat(row[3], 64)
			if math.Abs(got-perReq.Ratio) > 1e-6 || row[6] == "" || row[11] != "8" {
				t.Errorf("per-request against persistent: %q, want ratio %v with its verdict and 8 pairs", row, perReq.Ratio)
			}
			return
		}
	}
	t.Errorf("no per-request comparison in %q", rows)
}
