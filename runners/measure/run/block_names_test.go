package run

import (
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/results"
)

// A block's progress line names a few of its variants by their values and counts the
// rest, rather than every key in full.
func TestBlockNames(t *testing.T) {
	var vs []*results.Variant
	for _, layer := range []string{"raw", "gorm", "sqlx", "bun", "ent"} {
		vs = append(vs, &results.Variant{Variant: matrix.Variant{Lang: "go"}, Key: "lang=go/server=nethttp/layer=" + layer + "/stmt=interpolate/conn=persistent/pool=64"})
	}
	want := "nethttp/raw/interpolate/persistent/64 · nethttp/gorm/interpolate/persistent/64 · nethttp/sqlx/interpolate/persistent/64 +2 more"
	if got := blockNames(vs, 3); got != want {
		t.Errorf("blockNames = %q, want %q", got, want)
	}
	if got := blockNames(vs[:1], 3); got != "nethttp/raw/interpolate/persistent/64" {
		t.Errorf("one variant: %q", got)
	}
}
