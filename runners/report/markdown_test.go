package report

import (
	"strings"
	"testing"
)

func TestMarkdownAnswersQuestionsWithNumbers(t *testing.T) {
	md, err := Markdown(fakeRun(t, 6))
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	// The questions come first, before the variants table.
	q1, q2, q3, all := strings.Index(s, "## 1. ORM overhead"), strings.Index(s, "## 2. Interpolation"), strings.Index(s, "## 3. Connections"), strings.Index(s, "## Every variant")
	if !(0 < q1 && q1 < q2 && q2 < q3 && q3 < all) {
		t.Fatalf("sections out of order (%d %d %d %d):\n%s", q1, q2, q3, all, s)
	}
	for _, want := range []string{
		// orm prepare: medians 4025 against 5025, app CPU 130 against 100 µs, same trips.
		"go/orm (lib-orm, orm) against go/raw (nethttp, stmt=prepare, conn=persistent, pool=8): QPS ratio to raw 0.80× [",
		"(p = 0.002, n = 6, significant); app CPU +30.0 µs per request (130.0 against 100.0 µs; p = ",
		"round trips +0 per request (2 against 2).",
		// interpolate against prepare: the commands, then a significant QPS change.
		"go/nethttp/raw, conn=persistent, pool=8: prepare sends Prepare 1, Execute 1, Close stmt 1 per request (3 commands, 2 round trips); interpolate sends Query 1 per request (1 command, 1 round trip). QPS [",
		"+59.7% ", // 8025/5025 - 1
		"(p = 0.002, n = 6) improved",
		// per-request against persistent.
		"go/nethttp/raw, stmt=interpolate, pool=8: persistent sends Query 1 per request (1 command, 1 round trip); per-request sends Connect 1, Query 1, Quit 1 per request (3 commands, 2 round trips). QPS [",
		"-49.8% ", // 4025/8025 - 1
		"go/nethttp/hello answers without the database at 40250 ± ",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.md lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "Too few repetitions") {
		t.Errorf("six repetitions are enough for intervals, but the report warns:\n%s", s)
	}
}

func TestMarkdownVariantTable(t *testing.T) {
	md, err := Markdown(fakeRun(t, 6))
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	// 6 values 5000..5050: median 5025, interval [X(1), X(6)] = [5000, 5050], ± = 25/5025 = 0.5%.
	// p99: 8 ms × (1 + i/100), median 8.2; commands are exact: 2 round trips, no ±.
	row := "| go/nethttp/raw/prepare/persistent/pool=8 | 5025 ± 0% | 2.000 ± 0% | 8.200 ± 2% | 10.000 ± 0% | 100.0 ± 0% | 50.0 ± 0% | 20.0 ± 0% | 2 | 0.0000 ± 0% |"
	if !strings.Contains(s, row) {
		t.Errorf("report.md lacks the row\n%s\nin:\n%s", row, s)
	}
	if !strings.Contains(s, "| go/nethttp/hello | 40250 ± 1% |") {
		t.Errorf("hello row missing:\n%s", s)
	}
	// The invalid variant is listed with its reason and never gets a number.
	if !strings.Contains(s, "- go/nethttp/gorm/prepare/persistent/pool=8: verification: /users/abc answered 500, want 400") {
		t.Errorf("invalid variant not listed with its reason:\n%s", s)
	}
	if strings.Contains(s, "123") || strings.Contains(s, "| go/gorm") {
		t.Errorf("the invalid variant's QPS (123456…) appears in the report:\n%s", s)
	}
	if !strings.Contains(s, "| os | Debian GNU/Linux 12 (bookworm) |") {
		t.Errorf("environment missing:\n%s", s)
	}
}

func TestMarkdownSaysWhenTooFewRepetitions(t *testing.T) {
	md, err := Markdown(fakeRun(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	for _, want := range []string{
		"**Too few repetitions: as few as 2 per variant.",
		"| go/nethttp/raw/prepare/persistent/pool=8 | 5005 ± ∞ (!1) |",
		"(!1) need >= 6 samples for confidence interval at level 0.95",
		// Beside the question's number, not only in a footnote.
		"QPS ratio to raw 0.80× [-∞ +∞] (p = 0.333, n = 2, ~ not significant) [need >= 4 samples to detect a difference at alpha level 0.05; both: need >= 6 samples",
		"go/nethttp/hello answers without the database at 40050 ± ∞ [need >= 6 samples",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("report.md lacks %q:\n%s", want, s)
		}
	}
}
