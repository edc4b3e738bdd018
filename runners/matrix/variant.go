// Package matrix reads the variant matrix (matrix.yaml beside this package's parent):
// every variant the suite knows, the presets that pick from them, and the MySQL commands
// each variant is expected to cost per request.
package matrix

import (
	"fmt"
	"strconv"
	"strings"
)

// Prefix starts every variant's benchmark name, so benchstat reads it as one benchmark
// with sub-nameKeys it can slice by.
const Prefix = "BenchmarkSingleRow"

// Variant is one point in lang × layer × stmt × conn × pool.
type Variant struct {
	Lang  string // go, php
	Layer string // hello, raw, builder, orm, gorm
	Stmt  string // prepare, prepared, interpolate; none for hello
	Conn  string // persistent, per-request; none for hello
	Pool  int    // Go SetMaxOpenConns, PHP pm.max_children
}

// Key is the variant's name without the benchmark prefix:
// lang=go/layer=orm/stmt=interpolate/conn=persistent/pool=64.
func (v Variant) Key() string {
	return fmt.Sprintf("lang=%s/layer=%s/stmt=%s/conn=%s/pool=%d", v.Lang, v.Layer, v.Stmt, v.Conn, v.Pool)
}

// Name is the variant's benchmark name: BenchmarkSingleRow/lang=…/pool=64.
func (v Variant) Name() string { return Prefix + "/" + v.Key() }

func (v Variant) String() string { return v.Key() }

// nameKeys in the order a variant name spells them.
var nameKeys = []string{"lang", "layer", "stmt", "conn", "pool"}

// ParseName reads a variant from its Key or Name. It checks the form only; Matrix.Check
// says whether the matrix knows the variant.
func ParseName(s string) (Variant, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, Prefix), "/")
	parts := strings.Split(s, "/")
	if len(parts) != len(nameKeys) {
		return Variant{}, fmt.Errorf("variant %q: want %s", s, strings.Join(keysForm(), "/"))
	}
	var v Variant
	for i, p := range parts {
		k, val, ok := strings.Cut(p, "=")
		if !ok || k != nameKeys[i] || val == "" {
			return Variant{}, fmt.Errorf("variant %q: part %d is %q, want %s=…", s, i+1, p, nameKeys[i])
		}
		switch k {
		case "lang":
			v.Lang = val
		case "layer":
			v.Layer = val
		case "stmt":
			v.Stmt = val
		case "conn":
			v.Conn = val
		case "pool":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				return Variant{}, fmt.Errorf("variant %q: pool %q is not a positive integer", s, val)
			}
			v.Pool = n
		}
	}
	return v, nil
}

func keysForm() []string {
	out := make([]string, len(nameKeys))
	for i, k := range nameKeys {
		out[i] = k + "=…"
	}
	return out
}
