package run

import (
	"regexp"
	"strings"
	"testing"

	"dbbench/runners/define/matrix"
	"dbbench/runners/results"
)

// A run of two revisions lists every variant of the preset once per revision, A's
// next to B's, and starts each from its own revision's tree and Go target.
func TestEveryVariantOncePerRevision(t *testing.T) {
	m, err := matrix.Load("../../matrix.yaml")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := m.Preset("smoke")
	o := Options{
		Selection: Selection{Root: "/repo", BinDir: "/repo/bin", Matrix: m, Preset: p, Variants: regexp.MustCompile("^lang=go/.*layer=raw/stmt=interpolate/conn=persistent/")},
		Versus:    Versus{Revisions: []Revision{{Rev: &results.Rev{ID: "aaa1111"}, Root: "/tmp/a", BinDir: "/tmp/a-bin"}, {Rev: &results.Rev{ID: "bbb2222-dirty"}, Root: "/repo", BinDir: "/tmp/b-bin"}}},
	}
	if err := o.checkRevisions(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, v := range o.variants() {
		keys = append(keys, v.Key())
	}
	want := "lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=8/rev=aaa1111 " +
		"lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=8/rev=bbb2222-dirty"
	if got := strings.Join(keys, " "); got != want {
		t.Errorf("variants:\n%s\nwant\n%s", got, want)
	}
	for rev, want := range map[string]string{"aaa1111": "/tmp/a /tmp/a-bin", "bbb2222-dirty": "/repo /tmp/b-bin", "": "/repo /repo/bin"} {
		to := o.targetOptions(rev, "dsn")
		if got := to.RepoRoot + " " + to.BinDir; got != want || to.DSNFile != "dsn" {
			t.Errorf("rev %q starts from %s (dsn %q), want %s", rev, got, to.DSNFile, want)
		}
	}
	if ab := o.ab(); ab.A.ID != "aaa1111" || ab.B.ID != "bbb2222-dirty" {
		t.Errorf("ab = %+v", ab)
	}
	for _, bad := range [][]Revision{
		{{Rev: &results.Rev{ID: "a"}}},
		{{Rev: &results.Rev{ID: "a"}}, {Rev: &results.Rev{ID: "a"}}},
		{{Rev: &results.Rev{ID: "a"}}, {Rev: &results.Rev{ID: "b/c"}}},
	} {
		o.Revisions = bad
		if err := o.checkRevisions(); err == nil {
			t.Errorf("revisions %v accepted", bad)
		}
	}
}
