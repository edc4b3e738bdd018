package report

import (
	"testing"

	"dbbench/runners/results"
)

// A row names the layer, its library and its kind once each: a kind already in the
// library's name is not repeated, a word that merely contains it ("GORM") is not taken
// for it, and a raw-SQL library over the driver is a wrapper, as the answers say.
func TestRowNameSaysLibraryAndKindOnce(t *testing.T) {
	raw := &results.Variant{Layer: "raw", Kind: "raw", Library: "database/sql + go-sql-driver/mysql"}
	for _, c := range []struct {
		v    results.Variant
		want string
	}{
		{results.Variant{Layer: "gorm", Kind: "orm", Library: "GORM"}, "gorm (orm)"},
		{results.Variant{Layer: "orm", Kind: "orm", Library: "Beego ORM v2"}, "orm (Beego ORM v2)"},
		{results.Variant{Layer: "ent", Kind: "orm", Library: "ent"}, "ent (orm)"},
		{results.Variant{Layer: "sqlx", Kind: "raw", Library: "sqlx"}, "sqlx (wrapper)"},
		{results.Variant{Layer: "builder", Kind: "builder", Library: "squirrel"}, "builder (squirrel, builder)"},
		{*raw, "raw (database/sql + go-sql-driver/mysql, raw)"},
	} {
		if got := rowName(finding{Base: raw, Other: &c.v}); got != c.want {
			t.Errorf("%s: %q, want %q", c.v.Layer, got, c.want)
		}
	}
}
