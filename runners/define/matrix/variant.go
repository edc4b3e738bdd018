// Package matrix reads the variant matrix (runners/matrix.yaml):
// every variant the suite knows, the facts the runner branches on (which server and
// launcher runs a language, whether a layer uses the database, its kind and library),
// the presets that pick from them, and the MySQL commands each variant is expected to
// cost per request.
package matrix

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Prefix starts every variant's benchmark name, so benchstat reads it as one benchmark
// with sub-nameKeys it can slice by.
const Prefix = "BenchmarkSingleRow"

// Variant is one point in lang × server × layer × stmt × conn × pool × op, and, in a
// run of two revisions of this suite side by side (dbbench ab), of the revision.
type Variant struct {
	Lang   string `json:"lang"`   // go, php
	Server string `json:"server"` // who runs the code: nethttp (Go), fpm or worker (PHP)
	Layer  string `json:"layer"`  // hello, raw, builder, orm, …
	Stmt   string `json:"stmt"`   // prepare, prepared, interpolate; none for a layer without database
	Conn   string `json:"conn"`   // persistent, per-request; none for a layer without database
	Pool   int    `json:"pool"`   // Go SetMaxOpenConns, PHP pm.max_children or worker processes
	// Op is the endpoint measured, an op of the matrix (list100, insert, …); "" is get,
	// the one endpoint there was before ops, so that its key has no op= and every name,
	// pattern and baseline written before ops means what it meant.
	Op string `json:"op,omitempty"`
	// Database is the database server measured, a db of the matrix (mysql, …); "" is
	// the matrix's first (mariadb), the one server there was before dbs, so that its
	// key has no db= and every name written before means what it meant.
	Database string `json:"database,omitempty"`
	// Rev is the revision whose code serves the variant (a short commit hash), "" in a
	// run of one: then the key has no rev=, as every key had before.
	Rev string `json:"rev,omitempty"`
}

// Key is the variant's name without the benchmark prefix:
// lang=go/server=nethttp/layer=beego/stmt=interpolate/conn=persistent/pool=64, then
// /op=list100 for an op other than get, /db=mysql for a database other than the
// first, and /rev=1a2b3c4 when the variant has a revision.
func (v Variant) Key() string { return v.spell(true, false) }

// spell writes the key: with server= unless legacy, with op=get when spelledOp. The
// one place the key's form is written.
func (v Variant) spell(server, spelledOp bool) string {
	s := "lang=" + v.Lang
	if server {
		s += "/server=" + v.Server
	}
	s += fmt.Sprintf("/layer=%s/stmt=%s/conn=%s/pool=%d", v.Layer, v.Stmt, v.Conn, v.Pool)
	return s + v.opPart(spelledOp) + v.dbPart() + v.revPart()
}

// LegacyKey is the key as it was spelled before servers had a name: without server=.
// A name in this form means the language's first server (Matrix.Resolve).
func (v Variant) LegacyKey() string { return v.spell(false, false) }

// OpName is the variant's op, get when the key names none.
func (v Variant) OpName() string { return cmp.Or(v.Op, Get) }

// OpKey is the key with op= spelled out, op=get included: the benchmark name of a run
// that measures several ops, so that benchstat can slice get beside the others.
func (v Variant) OpKey() string { return v.spell(true, true) }

// opPart comes after pool and before rev; get's is empty unless spelled out.
func (v Variant) opPart(spelled bool) string {
	if v.Op == "" && !spelled {
		return ""
	}
	return "/op=" + v.OpName()
}

// dbPart comes after op and before rev; the first database's is empty.
func (v Variant) dbPart() string {
	if v.Database == "" {
		return ""
	}
	return "/db=" + v.Database
}

// WithoutDB is v as it would be on the matrix's first database.
func (v Variant) WithoutDB() Variant {
	v.Database = ""
	return v
}

// revPart comes last, so that the patterns written before revisions (anchored at
// lang=) read a key with rev= as they read one without.
func (v Variant) revPart() string {
	if v.Rev == "" {
		return ""
	}
	return "/rev=" + v.Rev
}

// WithoutRev is v as a run of one revision names it.
func (v Variant) WithoutRev() Variant {
	v.Rev = ""
	return v
}

// Part is one name=value of a key: a variant's, or a family's (a key without pool=).
type Part struct{ Name, Value string }

// Parts reads a key into its parts, in order: the one reading of a key's form, for
// ParseName and for whatever needs only some of a key. A part without "=" has no Name
// and all of it as its Value.
func Parts(key string) []Part {
	var out []Part
	for _, kv := range strings.Split(key, "/") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			k, v = "", kv
		}
		out = append(out, Part{k, v})
	}
	return out
}

// Spell writes parts as a key: Parts' inverse.
func Spell(parts []Part) string {
	out := make([]string, len(parts))
	for i, p := range parts {
		out[i] = p.Value
		if p.Name != "" {
			out[i] = p.Name + "=" + p.Value
		}
	}
	return strings.Join(out, "/")
}

// ValueOf is the value of part name in key; ok is false when key has no such part.
func ValueOf(key, name string) (value string, ok bool) {
	for _, p := range Parts(key) {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

// ShortKey is a variant key by its values alone, for a line of at most 120
// characters: "php/worker/eloquent/interpolate/persistent/8".
func ShortKey(key string) string {
	var vals []string
	for _, p := range Parts(key) {
		vals = append(vals, p.Value)
	}
	return strings.Join(vals, "/")
}

// Family is the variant's key without its pool: the family a pool sweep draws as one
// curve and the pool check measures at several pools.
func (v Variant) Family() string {
	return Spell(slices.DeleteFunc(Parts(v.Key()), func(p Part) bool { return p.Name == "pool" }))
}

// ParseFamily reads a Family back into a variant, its Pool 0.
func ParseFamily(family string) (Variant, error) {
	v, err := ParseName(withPool(family, 1))
	v.Pool = 0
	return v, err
}

// Name is the variant's benchmark name: BenchmarkSingleRow/lang=…/pool=64.
func (v Variant) Name() string { return Prefix + "/" + v.Key() }

func (v Variant) String() string { return v.Key() }

// nameKeys in the order a variant name spells them; server may be left out, op is
// there only for an op other than get (or spelled out), db only for a database other
// than the first, and rev only in a run of two revisions.
var nameKeys = []string{"lang", "server", "layer", "stmt", "conn", "pool"}

// ParseName reads a variant from its Key or Name, with or without server= (then Server
// is "": Matrix.Resolve fills in the language's first server), with or without op=
// (op=get is read as no op), with or without db=, and a trailing rev=. It checks the
// form only; Matrix.Resolve reads the first database's db= as none, and Matrix.Check
// says whether the matrix knows the variant.
func ParseName(s string) (Variant, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, Prefix), "/")
	parts := Parts(s)
	keys := slices.Clone(nameKeys)
	tail := parts
	// The optional keys, read from the end: rev, then db, then op.
	var optional []string
	for _, k := range []string{"rev", "db", "op"} {
		if len(tail) > 0 && tail[len(tail)-1].Name == k {
			tail = tail[:len(tail)-1]
			optional = append([]string{k}, optional...)
		}
	}
	keys = append(keys, optional...)
	if len(parts) == len(keys)-1 {
		keys = slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return k == "server" })
	}
	if len(parts) != len(keys) {
		return Variant{}, fmt.Errorf("variant %q: want %s (server= may be left out, op=, db= and rev= added)", s, strings.Join(keysForm(), "/"))
	}
	var v Variant
	for i, p := range parts {
		if p.Name != keys[i] || p.Value == "" {
			return Variant{}, fmt.Errorf("variant %q: part %d is %q, want %s=…", s, i+1, Spell(parts[i:i+1]), keys[i])
		}
		if err := v.set(p.Name, p.Value); err != nil {
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
	case "op":
		if val != Get {
			v.Op = val
		}
	case "db":
		v.Database = val
	case "rev":
		if err := CheckRev(val); err != nil {
			return err
		}
		v.Rev = val
	}
	return nil
}

// CheckRev says whether s can be a variant's rev= value: letters, digits and . _ + -,
// so that a key splits back into its parts and a file name made from it is safe.
func CheckRev(s string) error {
	if s == "" || strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") != "" {
		return fmt.Errorf("rev %q: want letters, digits, '.', '_', '+' or '-'", s)
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
