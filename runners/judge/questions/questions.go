// Package questions names the comparisons dbbench exists to make, as pairs of variants
// that differ in one key, each at the same op: each database layer against its
// language's baseline (what an ORM costs), interpolate and prepared against prepare
// (what a statement mode is worth), per-request against persistent connections, and
// each server against the language's first (php-fpm against resident workers), each
// variant on a second database server against itself on the first; and
// each list against the list of fewest rows of the same variant (what a row costs). A
// run of two revisions (dbbench ab) asks one question only: what B changed, each
// variant at B against itself at A.
// The runner measures these pairs side by side; the report answers from them. This is
// the one place they are defined.
package questions

import (
	"cmp"

	"dbbench/runners/results"
)

// The questions, by the key a pair's variants differ in.
const (
	Layer  = "layer"  // 1. what each layer costs over the raw driver
	Stmt   = "stmt"   // 2. what interpolation and a statement prepared once are worth
	Conn   = "conn"   // 3. what a connection per request costs
	Server = "server" // 3. what the runtime costs: resident workers against php-fpm
	Rows   = "rows"   // beyond one row: a list of more rows against one of fewer, per row hydrated
	DB     = "db"     // another database server (MySQL 8; PgBouncer) against the run's first (MariaDB; PostgreSQL)
	Texts  = "texts"  // a statement working set: get through many statement texts against get's one
	// 3. a layer as its library ships it against its language's tuned statement and
	// connection modes (results.Variant.Tuned): where a team starts
	Shipped = "shipped"
	Rev     = "rev" // dbbench ab: what revision B changed, against revision A
	// Related rows (the orders ops): each form of each layer against its language's raw
	// driver's JOIN of the same request (Fetch); a layer's eager form against its own
	// lazy one, what 1 + N statements cost it (Lazy).
	Fetch = "fetch"
	Lazy  = "lazy"
)

// op is the key of the endpoint, which every question but Rows holds fixed.
const op = "op"

// The reference value of each key: a pair compares Other with the variant that has this
// value instead (the layer's reference is the language's baseline, in results.Lang;
// the db's is the run's first server, results.Run.FirstDatabase: MariaDB, whose
// variants have no db=, when measured; a layer may name its own stmt reference,
// results.Variant.StmtRef).
const (
	RefStmt = "prepare"
	RefConn = "persistent"
)

// Pair is one comparison: Other against Base, which differ only in Question's key.
type Pair struct {
	Question    string
	Base, Other *results.Variant
}

// Pairs lists every comparison the variants of r allow, over the variants keep
// accepts (nil: all), in the order of r.Variants. In a run of two revisions these are
// the revision pairs only.
func Pairs(r *results.Run, keep func(*results.Variant) bool) []Pair {
	if r.AB != nil {
		return revPairs(r, keep)
	}
	var out []Pair
	firstDB := r.FirstDatabase()
	for _, v := range r.Variants {
		if !v.DB || (keep != nil && !keep(v)) {
			continue
		}
		l := r.Langs[v.Lang]
		refs := []struct{ question, value string }{{Stmt, cmp.Or(v.StmtRef, RefStmt)}, {Conn, RefConn}, {DB, firstDB}}
		if l != nil {
			refs = append([]struct{ question, value string }{{Layer, cmp.Or(v.LayerRef, l.Baseline)}}, refs...)
			if l.Default != "" {
				refs = append(refs, struct{ question, value string }{Server, l.Default})
			}
		}
		for _, ref := range refs {
			if field(v, ref.question) == ref.value {
				continue
			}
			if b := find(r, v, ref.question, ref.value, keep); b != nil {
				out = append(out, Pair{Question: ref.question, Base: b, Other: v})
			}
		}
		if b := fewestRows(r, v, keep); b != nil {
			out = append(out, Pair{Question: Rows, Base: b, Other: v})
		}
		if b := oneText(r, v, keep); b != nil {
			out = append(out, Pair{Question: Texts, Base: b, Other: v})
		}
		if b := rawJoin(r, v, keep); b != nil {
			out = append(out, Pair{Question: Fetch, Base: b, Other: v})
		}
		if b := sameLazy(r, v, keep); b != nil {
			out = append(out, Pair{Question: Lazy, Base: b, Other: v})
		}
		if t := v.Tuned; t != nil && (t.Stmt != v.Stmt || t.Conn != v.Conn) {
			// A layer without the tuned statement mode (bun has only its own) is
			// compared at its own mode, tuned connections.
			b := findWith(r, v, map[string]string{Stmt: t.Stmt, Conn: t.Conn}, keep)
			if b == nil && t.Conn != v.Conn {
				b = find(r, v, Conn, t.Conn, keep)
			}
			if b != nil {
				out = append(out, Pair{Question: Shipped, Base: b, Other: v})
			}
		}
	}
	return out
}

// fewestRows is the list of v's variant (every key but op the same) with the fewest
// rows, when v is a list of more; nil otherwise.
func fewestRows(r *results.Run, v *results.Variant, keep func(*results.Variant) bool) *results.Variant {
	if v.Rows == 0 || v.Orders > 0 { // a page with orders is its forms' question
		return nil
	}
	var best *results.Variant
	for _, w := range r.Variants {
		if w.Rows == 0 || w.Orders > 0 || w.Rows >= v.Rows || (keep != nil && !keep(w)) || (best != nil && w.Rows >= best.Rows) {
			continue
		}
		if b := find(r, v, op, w.Op, keep); b == w {
			best = w
		}
	}
	return best
}

// oneText is get of v's variant (every key but op the same), when v reads the row
// through a working set of statement texts; nil otherwise.
func oneText(r *results.Run, v *results.Variant, keep func(*results.Variant) bool) *results.Variant {
	if v.Texts == 0 {
		return nil
	}
	if b := find(r, v, op, "", keep); b != nil {
		return b
	}
	return find(r, v, op, "get", keep)
}

// rawJoin is the JOIN of v's request by its language's baseline layer (every other key
// the same), when v reads related rows in another form or layer; nil otherwise.
func rawJoin(r *results.Run, v *results.Variant, keep func(*results.Variant) bool) *results.Variant {
	l := r.Langs[v.Lang]
	if v.Fetch == "" || l == nil {
		return nil
	}
	baseline := cmp.Or(v.LayerRef, l.Baseline)
	if v.Fetch == join && v.Layer == baseline {
		return nil
	}
	return related(r, v, join, map[string]string{Layer: baseline}, keep)
}

// sameLazy is v's layer's lazy form of v's request, when v reads it eagerly or by a
// join; nil otherwise.
func sameLazy(r *results.Run, v *results.Variant, keep func(*results.Variant) bool) *results.Variant {
	if v.Fetch == "" || v.Fetch == lazy {
		return nil
	}
	return related(r, v, lazy, map[string]string{}, keep)
}

// The forms of matrix.Fetches that a pair refers to.
const (
	join = "join"
	lazy = "lazy"
)

// related is the variant equal to v but for set and its op, which reads v's request (the
// same rows and orders) in form fetch.
func related(r *results.Run, v *results.Variant, fetch string, set map[string]string, keep func(*results.Variant) bool) *results.Variant {
	for _, w := range r.Variants {
		if w.Fetch != fetch || w.Orders != v.Orders || w.Rows != v.Rows {
			continue
		}
		set[op] = w.Op
		if b := findWith(r, v, set, keep); b == w {
			return b
		}
	}
	return nil
}

// revPairs pairs each variant at B with itself at A, hello too: a new toolchain or
// HTTP stack can change what a request costs without the database.
func revPairs(r *results.Run, keep func(*results.Variant) bool) []Pair {
	var out []Pair
	for _, v := range r.Variants {
		if v.Rev != r.AB.B.ID || (keep != nil && !keep(v)) {
			continue
		}
		if b := find(r, v, Rev, r.AB.A.ID, keep); b != nil {
			out = append(out, Pair{Question: Rev, Base: b, Other: v})
		}
	}
	return out
}

func field(v *results.Variant, key string) string {
	switch key {
	case Layer:
		return v.Layer
	case Stmt:
		return v.Stmt
	case Conn:
		return v.Conn
	case Server:
		return v.Server
	case Rev:
		return v.Rev
	case DB:
		return v.Database
	case op:
		return v.Op
	}
	return ""
}

// find returns the variant of r equal to v but for key, which is value.
func find(r *results.Run, v *results.Variant, key, value string, keep func(*results.Variant) bool) *results.Variant {
	return findWith(r, v, map[string]string{key: value}, keep)
}

// findWith returns the variant of r equal to v but for the keys of set, which have
// set's values.
func findWith(r *results.Run, v *results.Variant, set map[string]string, keep func(*results.Variant) bool) *results.Variant {
	for _, w := range r.Variants {
		if keep != nil && !keep(w) {
			continue
		}
		if w.Lang != v.Lang || w.Pool != v.Pool {
			continue
		}
		same := true
		for _, k := range []string{Layer, Stmt, Conn, Server, DB, Rev, op} {
			want, given := set[k]
			if !given {
				want = field(v, k)
			}
			if field(w, k) != want {
				same = false
			}
		}
		if same {
			return w
		}
	}
	return nil
}
