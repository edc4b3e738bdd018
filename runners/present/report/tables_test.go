package report

import (
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// A row names the layer, its library and its kind once each: a kind already in the
// library's name is not repeated, a word that merely contains it ("GORM") is not taken
// for it, and a raw-SQL library over the driver is a wrapper, as the answers say.
func TestRowNameSaysLibraryAndKindOnce(t *testing.T) {
	raw := &results.Variant{Variant: matrix.Variant{Layer: "raw"}, Kind: "raw", Library: "database/sql + go-sql-driver/mysql"}
	for _, c := range []struct {
		v    results.Variant
		want string
	}{
		{results.Variant{Variant: matrix.Variant{Layer: "gorm"}, Kind: "orm", Library: "GORM"}, "gorm (orm)"},
		{results.Variant{Variant: matrix.Variant{Layer: "orm"}, Kind: "orm", Library: "Beego ORM v2"}, "orm (Beego ORM v2)"},
		{results.Variant{Variant: matrix.Variant{Layer: "ent"}, Kind: "orm", Library: "ent"}, "ent (orm)"},
		{results.Variant{Variant: matrix.Variant{Layer: "sqlx"}, Kind: "raw", Library: "sqlx"}, "sqlx (wrapper)"},
		{results.Variant{Variant: matrix.Variant{Layer: "builder"}, Kind: "builder", Library: "squirrel"}, "builder (squirrel, builder)"},
		{*raw, "raw (database/sql + go-sql-driver/mysql, raw)"},
	} {
		if got := rowName(finding{Base: raw, Other: &c.v}); got != c.want {
			t.Errorf("%s: %q, want %q", c.v.Layer, got, c.want)
		}
	}
}

// A difference of counts is the difference of the two medians as the tables print them:
// 104.6 and 58.4 allocations read 105 and 58, so the cell says +47, not +46.
func TestExtraCountsAgreeWithTheColumns(t *testing.T) {
	r := pairedRun(t)
	for _, v := range r.Variants {
		for _, rep := range v.Reps {
			switch {
			case v.Layer == "gorm":
				rep.Counts[units.Allocs] = 104.6
			case v.Layer == "raw" && v.Lang == "go" && v.Stmt == "interpolate" && v.Conn == "persistent":
				rep.Counts[units.Allocs] = 58.4
			}
		}
	}
	d := load(judged(t, r))
	for _, f := range d.findings() {
		if f.Other.Layer == "gorm" && f.Question == questions.Layer {
			if f.ExtraAllocs != 47 {
				t.Errorf("gorm: ExtraAllocs = %v, want 47 (105 − 58, as the columns print)", f.ExtraAllocs)
			}
			return
		}
	}
	t.Fatal("no gorm finding")
}

// A difference of bytes is of the whole bytes the columns print, 7551 − 4301 = 3250 B,
// and its tie rounds as the reader would, to +3.3 kB (the medians differ by 3250.95 B),
// not to the even +3.2 kB.
func TestExtraBytesRoundAsTheReaderWould(t *testing.T) {
	r := pairedRun(t)
	for _, v := range r.Variants {
		for _, rep := range v.Reps {
			switch {
			case v.Layer == "gorm":
				rep.Counts[units.AllocBytes] = 7551.46
			case v.Layer == "raw" && v.Lang == "go" && v.Stmt == "interpolate" && v.Conn == "persistent":
				rep.Counts[units.AllocBytes] = 4300.51
			}
		}
	}
	d := load(judged(t, r))
	for _, f := range d.findings() {
		if f.Other.Layer == "gorm" && f.Question == questions.Layer {
			if got := signedBytes(f.ExtraBytes); got != "+3.3 kB" {
				t.Errorf("gorm: extra bytes %q (%v B), want +3.3 kB", got, f.ExtraBytes)
			}
			return
		}
	}
	t.Fatal("no gorm finding")
}
