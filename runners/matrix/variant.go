// Package matrix reads the variant matrix (matrix.yaml beside this package's parent):
// every variant the suite knows, the facts the runner branches on (which server and
// launcher runs a language, whether a layer uses the database, its kind and library),
// the presets that pick from them, and the MySQL commands each variant is expected to
// cost per request.
package matrix

import (
	"fmt"
	"strconv"
	"strings"
)

// Prefix starts every variant's benchmark name, so benchstat reads it as one benchmark
// with sub-nameKeys it can slice by.
const Prefix = "BenchmarkSingleRow"

// Variant is one point in lang × server × layer × stmt × conn × pool.
type Variant struct {
	Lang   string // go, php
	Server string // who runs the code: nethttp (Go), fpm or worker (PHP)
	Layer  string // hello, raw, builder, orm, …
	Stmt   string // prepare, prepared, interpolate; none for a layer without database
	Conn   string // persistent, per-request; none for a layer without database
	Pool   int    // Go SetMaxOpenConns, PHP pm.max_children or worker processes
}

// Key is the variant's name without the benchmark prefix:
// lang=go/server=nethttp/layer=orm/stmt=interpolate/conn=persistent/pool=64.
func (v Variant) Key() string {
	return fmt.Sprintf("lang=%s/server=%s/layer=%s/stmt=%s/conn=%s/pool=%d", v.Lang, v.Server, v.Layer, v.Stmt, v.Conn, v.Pool)
}

// LegacyKey is the key as it was spelled before servers had a name: without server=.
// A name in this form means the language's first server (Matrix.Resolve).
func (v Variant) LegacyKey() string {
	return fmt.Sprintf("lang=%s/layer=%s/stmt=%s/conn=%s/pool=%d", v.Lang, v.Layer, v.Stmt, v.Conn, v.Pool)
}

// Name is the variant's benchmark name: BenchmarkSingleRow/lang=…/pool=64.
func (v Variant) Name() string { return Prefix + "/" + v.Key() }

func (v Variant) String() string { return v.Key() }

// nameKeys in the order a variant name spells them; server may be left out.
var nameKeys = []string{"lang", "server", "layer", "stmt", "conn", "pool"}

// ParseName reads a variant from its Key or Name, with or without server= (then Server
// is "": Matrix.Resolve fills in the language's first server). It checks the form only;
// Matrix.Check says whether the matrix knows the variant.
func ParseName(s string) (Variant, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, Prefix), "/")
	parts := strings.Split(s, "/")
	keys := nameKeys
	if len(parts) == len(nameKeys)-1 {
		keys = []string{"lang", "layer", "stmt", "conn", "pool"}
	}
	if len(parts) != len(keys) {
		return Variant{}, fmt.Errorf("variant %q: want %s (server= may be left out)", s, strings.Join(keysForm(), "/"))
	}
	var v Variant
	for i, p := range parts {
		k, val, ok := strings.Cut(p, "=")
		if !ok || k != keys[i] || val == "" {
			return Variant{}, fmt.Errorf("variant %q: part %d is %q, want %s=…", s, i+1, p, keys[i])
		}
		if err := v.set(k, val); err != nil {
			return Variant{}, fmt.Errorf("variant %q: %w", s, err)
		}
	}
	return v, nil
}

func (v *Variant) set(k, val string) error {
	switch k {
	case "lang":
		v.Lang = val
	case "server":
		v.Server = val
	case "layer":
		v.Layer = val
	case "stmt":
		v.Stmt = val
	case "conn":
		v.Conn = val
	case "pool":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return fmt.Errorf("pool %q is not a positive integer", val)
		}
		v.Pool = n
	}
	return nil
}

func keysForm() []string {
	out := make([]string, len(nameKeys))
	for i, k := range nameKeys {
		out[i] = k + "=…"
	}
	return out
}
