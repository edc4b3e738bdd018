package questions

import (
	"fmt"
	"slices"
	"testing"

	"dbbench/runners/results"
)

func variant(lang, server, layer, stmt, conn string, pool int) *results.Variant {
	key := fmt.Sprintf("lang=%s/server=%s/layer=%s/stmt=%s/conn=%s/pool=%d", lang, server, layer, stmt, conn, pool)
	return &results.Variant{Key: key, Lang: lang, Server: server, Layer: layer, Stmt: stmt, Conn: conn, Pool: pool, DB: layer != "hello"}
}

func TestPairsDifferInOneKeyFromTheReference(t *testing.T) {
	r := &results.Run{Langs: map[string]*results.Lang{
		"go":  {Baseline: "raw", Default: "nethttp"},
		"php": {Baseline: "raw", Default: "fpm"},
	}}
	r.Variants = []*results.Variant{
		variant("go", "nethttp", "hello", "none", "none", 8),
		variant("go", "nethttp", "raw", "prepare", "persistent", 8),
		variant("go", "nethttp", "raw", "interpolate", "persistent", 8),
		variant("go", "nethttp", "orm", "interpolate", "persistent", 8),
		variant("go", "nethttp", "orm", "interpolate", "persistent", 16), // no raw at pool 16
		variant("go", "nethttp", "raw", "interpolate", "per-request", 8),
		variant("php", "fpm", "raw", "interpolate", "persistent", 8),
		variant("php", "worker", "raw", "interpolate", "persistent", 8),
	}
	var got []string
	for _, p := range Pairs(r, nil) {
		got = append(got, fmt.Sprintf("%s: %s/%s/%s/%s against %s", p.Question, p.Other.Server, p.Other.Layer, p.Other.Stmt, p.Other.Conn, p.Base.Key))
	}
	want := []string{
		"stmt: nethttp/raw/interpolate/persistent against lang=go/server=nethttp/layer=raw/stmt=prepare/conn=persistent/pool=8",
		"layer: nethttp/orm/interpolate/persistent against lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=8",
		"conn: nethttp/raw/interpolate/per-request against lang=go/server=nethttp/layer=raw/stmt=interpolate/conn=persistent/pool=8",
		"server: worker/raw/interpolate/persistent against lang=php/server=fpm/layer=raw/stmt=interpolate/conn=persistent/pool=8",
	}
	if !slices.Equal(got, want) {
		t.Errorf("pairs:\n%q\nwant:\n%q", got, want)
	}
	// keep leaves variants out, as a run leaves out invalid ones.
	noPHP := Pairs(r, func(v *results.Variant) bool { return v.Lang != "php" })
	if len(noPHP) != 3 {
		t.Errorf("%d pairs without PHP, want 3", len(noPHP))
	}
}
