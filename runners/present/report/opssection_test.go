package report

import (
	"slices"
	"strings"
	"testing"

	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
)

// opSpec is what an op does to a layer's figures: its QPS and app CPU are get's times
// these, and a list's rows add each layer's cost per row (perRow in opsRun).
type opSpec struct {
	name     string
	rows     int
	qps, cpu float64
}

// opsRun is a run of the ops preset in small, measured in pairs: Go and PHP layers at
// get, list 100, list 10, insert and update, update also at prepare; every update
// counted its visits, and GORM's lost 3 of them (invalid, as run.Run marks it).
func opsRun(t *testing.T) *results.Run {
	t.Helper()
	r := pairedRun(t)
	r.Settings.Preset, r.Comparisons = "ops", nil
	perRow := map[string][2]float64{"raw": {0.5, 4}, "orm": {1.5, 12}, "gorm": {2, 15}, "builder": {0.6, 5}, "sqlx": {0.7, 6}}
	ops := []opSpec{{"list100", 100, 0.5, 1}, {"list10", 10, 0.9, 1}, {"insert", 0, 0.8, 1.1}, {"update", 0, 0.4, 2}}
	var vs []*results.Variant
	for i, v := range r.Variants {
		if !v.Valid {
			continue
		}
		vs = append(vs, v)
		if !v.DB || v.Server == "worker" || v.Conn != "persistent" || (v.Stmt != "interpolate" && v.Layer != "raw") {
			continue
		}
		for j, op := range ops {
			if v.Stmt != "interpolate" && op.name != "update" {
				continue
			}
			s := pairedSpecs[i]
			row := perRow[v.Layer]
			s.qps *= op.qps
			s.cpuUS = s.cpuUS*op.cpu + float64(op.rows)*row[0]
			s.allocs += float64(op.rows) * row[1]
			w := pairedVariant(t, s, 20*i+j)
			w.Op, w.Rows, w.Key = op.name, op.rows, w.Key+"/op="+op.name
			w.Name = "BenchmarkSingleRow/" + w.Key
			if op.name == "update" {
				for _, rep := range w.Reps {
					rep.Visits = &results.Visits{Successful: rep.OK, Gained: rep.OK}
				}
				if v.Layer == "gorm" {
					w.Reps[3].Visits.Gained -= 3
					w.Valid, w.InvalidReason = false, "block, slice 4: LOST UPDATES: 5000 successful visits at 16 clients, the table gained 4997: 3 lost"
				}
			}
			vs = append(vs, w)
		}
	}
	orm := pairedVariant(t, spec{"go", "nethttp", "orm", "prepare", "persistent", "orm", "Beego ORM v2", 8, 2400, 180, 80}, 77)
	orm.Op, orm.Key, orm.Name = "update", orm.Key+"/op=update", orm.Name+"/op=update"
	for _, rep := range orm.Reps {
		rep.Visits = &results.Visits{Successful: rep.OK, Gained: rep.OK}
	}
	r.Variants = append(vs, orm)
	for _, p := range questions.Pairs(r, func(v *results.Variant) bool { return v.Valid }) {
		c := &results.Comparison{Question: p.Question, Base: p.Base.Key, Other: p.Other.Key, Reached: true}
		for i := 1; i <= pairedSlices; i++ {
			c.Pairs = append(c.Pairs, results.Pair{Base: []int{i}, Other: []int{i}})
		}
		r.Comparisons = append(r.Comparisons, c)
	}
	return r
}

// The ops get a section of their own, "Beyond one row": each layer ÷ the raw driver at
// each op, the cost per row from list 100 less list 10, the lost-update check of every
// update variant; answer 1 gains one sentence pointing at it and keeps get's figures.
func TestBeyondOneRow(t *testing.T) {
	p, err := build(judged(t, opsRun(t)))
	if err != nil {
		t.Fatal(err)
	}
	a := p.Answers[0]
	if !strings.Contains(a.Sentence, "at interpolate/persistent) — Go: 0.") ||
		!strings.Contains(a.Sentence, "Beyond one row (below): on a list of 100 rows the layers keep Go ") ||
		!strings.HasSuffix(a.Sentence, "; 1 variant lost updates at 16 clients.") || strings.Count(a.Sentence, ". ") > 1 {
		t.Errorf("answer 1: %s", a.Sentence)
	}
	for _, f := range a.Groups[0].Findings {
		if f.Other.Op != "" {
			t.Errorf("answer 1 shows %s", f.Other.Key)
		}
	}
	if !strings.HasPrefix(p.Answers[1].Sentence, "Interpolation against a prepare per query") {
		t.Errorf("answer 2 (get has stmt comparisons): %s", p.Answers[1].Sentence)
	}
	i := slices.IndexFunc(p.Sections, func(s section) bool { return s.ID == opsID })
	if i < 0 {
		t.Fatal("no section Beyond one row")
	}
	grids := map[string]grid{}
	for _, g := range p.Sections[i].Grids {
		grids[g.ID] = g
	}
	ratios := grids["t-ops-go-nethttp"]
	if want := []string{"layer (library, kind)", "get", "list 100", "insert", "update"}; !slices.Equal(ratios.Head, want) {
		t.Fatalf("ratio table head %q, want %q", ratios.Head, want)
	}
	text := func(g grid) string {
		var b strings.Builder
		for _, r := range g.Rows {
			for _, c := range r {
				b.WriteString(strings.Join(c.Lines, " · ") + " | ")
			}
			b.WriteString("\n")
		}
		return b.String()
	}
	// list 100: orm's 0.5 × 6750 against raw's 0.5 × 7500 is 0.90; its CPU (80 + 150
	// µs) against raw's (70 + 50) is 1.92.
	if s := text(ratios); !strings.Contains(s, "orm (Beego ORM v2) | QPS 0.91× ") || !strings.Contains(s, "QPS 0.90× [") || !strings.Contains(s, "CPU 1.92× [") {
		t.Errorf("Go ratio table:\n%s", s)
	}
	// Per row: allocations do not drift, so 100 rows less 10 over 90 is the spec's.
	rows := text(grids["t-rows-go-nethttp"])
	for _, want := range []string{"raw (database/sql + go-sql-driver/mysql) | 0.5", "| 4.0 [4.0, 4.0] | 160 B [160, 160] |",
		"orm (Beego ORM v2) | 1.", "| 12 [12, 12] |", "gorm | 2."} {
		if !strings.Contains(rows, want) {
			t.Errorf("per-row table lacks %q:\n%s", want, rows)
		}
	}
	if _, ok := grids["t-rows-php-fpm"]; !ok {
		t.Error("no per-row table for PHP")
	}
	lost := text(grids["t-lost-updates"])
	if !strings.Contains(lost, "go/nethttp/gorm/interpolate/persistent/pool=8/op=update | ") || !strings.Contains(lost, "| 3 | LOST UPDATES") ||
		strings.Count(lost, "none lost") != 9 {
		t.Errorf("lost updates table:\n%s", lost)
	}
	if _, ok := grids["t-layer-go-update"]; !ok {
		t.Errorf("no table of update's layers at every stmt mode: %v", slices.Collect(func(yield func(string) bool) {
			for k := range grids {
				yield(k)
			}
		}))
	}
}

// A run without ops keeps its report as it was: no section, no sentence, no op column.
func TestNoOpsNoSection(t *testing.T) {
	p, err := build(judged(t, pairedRun(t)))
	if err != nil {
		t.Fatal(err)
	}
	if slices.ContainsFunc(p.Sections, func(s section) bool { return s.ID == opsID }) || strings.Contains(p.Answers[0].Sentence, "Beyond one row") ||
		slices.Contains(p.Variants[0].Head, "op") {
		t.Errorf("a run of get alone has an ops section, sentence or column")
	}
}
