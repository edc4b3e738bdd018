package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// The tables under each question: a row per layer, a column per other setting, each
// cell one comparison; and the grid and cell every table of the page is made of.

// grid is a table of the page: markdown writes a cell's lines joined with " · ", HTML
// one under the other. A sortable grid's first Keys columns are variant keys, by which
// the HTML page filters it.
type grid struct {
	ID       string
	Caption  string
	Head     []string
	Rows     [][]cell
	Notes    []string // under the table
	Sortable bool
	Keys     int
}

type cell struct {
	Lines []string
	Sort  float64 // the value a sortable column sorts by; NaN: by text
	Link  string  // an anchor or a relative file the cell links to
}

func textCell(lines ...string) cell { return cell{Lines: lines, Sort: math.NaN()} }

func numCell(v float64, text string) cell { return cell{Lines: []string{text}, Sort: v} }

// comparisonGrids are question q's tables, one per language: a row per layer, a column
// per setting of the other variant (the keys that vary among the language's findings,
// other than the question's own and the layer), each cell one comparison.
func comparisonGrids(fs []finding, q string) []grid {
	var out []grid
	for _, lang := range langsOf(fs) {
		of := byKind(slices.DeleteFunc(slices.Clone(fs), func(f finding) bool { return f.Other.Lang != lang }))
		slices.SortStableFunc(of, func(a, b finding) int { return rowRank(a, q) - rowRank(b, q) })
		keys := varyingKeys(of, q)
		var cols, rows []string
		where := map[[2]string]finding{}
		for _, f := range of {
			col, row := columnName(f, keys), rowName(f)
			if !slices.Contains(cols, col) {
				cols = append(cols, col)
			}
			if !slices.Contains(rows, row) {
				rows = append(rows, row)
			}
			where[[2]string{row, col}] = f
		}
		slices.SortStableFunc(cols, func(a, b string) int { return columnRank(where, a) - columnRank(where, b) })
		g := grid{ID: fmt.Sprintf("t-%s-%s", q, lang), Caption: gridCaption(q, lang, of),
			Head: append([]string{"layer (library, kind)"}, cols...)}
		for _, row := range rows {
			r := []cell{textCell(row)}
			for _, col := range cols {
				f, ok := where[[2]string{row, col}]
				if !ok {
					r = append(r, textCell("–"))
					continue
				}
				r = append(r, findingCell(f))
			}
			g.Rows = append(g.Rows, r)
		}
		g.Notes = []string{markLegend(of[0].Pairing)}
		out = append(out, g)
	}
	return out
}

// rowRank orders a table's rows by kind, ORMs first; but the raw driver first when it
// is compared with itself (statement modes, connections, servers).
func rowRank(f finding, q string) int {
	if q != questions.Layer && f.Other.Kind == "raw" {
		return -1
	}
	return kindRank(f)
}

// columnRank orders a table's columns: the first server, pooled connections, then
// interpolate, prepared and other statement modes.
func columnRank(where map[[2]string]finding, col string) int {
	for k, f := range where {
		if k[1] != col {
			continue
		}
		v := f.Other
		r := map[string]int{"interpolate": 0, "prepared": 1, "prepare": 2}[v.Stmt]
		if v.Conn != "persistent" {
			r += 10
		}
		if l := f.Base; l.Server != v.Server && f.Question != questions.Server {
			r += 100
		}
		return r
	}
	return 0
}

// gridCaption says what a table compares with what.
func gridCaption(q, lang string, fs []finding) string {
	l := langName(lang)
	switch q {
	case questions.Layer:
		return fmt.Sprintf("%s: each layer against %s at the same server, stmt, conn and pool", l, shortLibrary(fs[0].Base))
	case questions.Stmt:
		return fmt.Sprintf("%s: each statement mode against prepare, same layer, conn and pool", l)
	case questions.Conn:
		return fmt.Sprintf("%s: a connection per request against a pooled one, same layer, stmt and pool", l)
	case questions.Server:
		return fmt.Sprintf("%s: each server against %s, same layer, stmt, conn and pool", l, serverName(fs[0].Base.Server))
	case questions.DB:
		return fmt.Sprintf("%s: each variant on %s against itself on %s", l, dbName(fs[0].Other), dbName(fs[0].Base))
	case questions.Shipped:
		return fmt.Sprintf("%s: each layer as its library ships it against itself at %s · %s, same server and pool", l, fs[0].Base.Stmt, fs[0].Base.Conn)
	}
	return l
}

// varyingKeys are the keys besides q and layer whose value differs among fs' variants.
func varyingKeys(fs []finding, q string) []string {
	var out []string
	for _, k := range []string{"server", "stmt", "conn", "pool"} {
		if k == q || q == questions.Shipped && (k == "stmt" || k == "conn") { // the column says both
			continue
		}
		seen := map[string]bool{}
		for _, f := range fs {
			seen[keyValue(f.Other, k)] = true
		}
		if len(seen) > 1 {
			out = append(out, k)
		}
	}
	if q != questions.Layer {
		out = append([]string{q}, out...) // the value compared is the column's first word
	}
	return out
}

func keyValue(v *results.Variant, k string) string {
	switch k {
	case "server":
		return v.Server
	case "stmt":
		return v.Stmt
	case "conn":
		return v.Conn
	case "pool":
		return fmt.Sprintf("pool=%d", v.Pool)
	case questions.Shipped:
		return "as shipped: " + v.Stmt + " · " + v.Conn
	}
	return ""
}

// columnName is the other variant's setting in the keys that vary, "interpolate · per-request".
func columnName(f finding, keys []string) string {
	var parts []string
	for _, k := range keys {
		parts = append(parts, keyValue(f.Other, k))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("%s · %s", f.Other.Stmt, f.Other.Conn)
	}
	return strings.Join(parts, " · ")
}

// rowName names a table row by the other side: layer, library (unless it is the
// layer's name) and kind (unless the library's name says it).
func rowName(f finding) string {
	v := f.Other
	if v.Kind == "" {
		return v.Layer
	}
	kind := v.Kind
	if kind == "raw" && v.Layer != f.Base.Layer {
		kind = "wrapper" // raw SQL through a library over the driver (as the answers say)
	}
	lib := library(v)
	switch {
	case strings.EqualFold(lib, v.Layer):
		return fmt.Sprintf("%s (%s)", v.Layer, kind)
	case slices.Contains(strings.Fields(strings.ToLower(lib)), kind): // "Beego ORM v2"
		return fmt.Sprintf("%s (%s)", v.Layer, lib)
	}
	return fmt.Sprintf("%s (%s, %s)", v.Layer, lib, kind)
}

// findingCell holds one comparison: QPS and CPU ratios with their half-widths and
// decisions, the extra CPU, allocations and bytes, the round trips, the pairs.
func findingCell(f finding) cell {
	c := cell{Sort: f.QPS.Value, Link: "#" + findingID(f)}
	c.Lines = append(c.Lines, estimateLine("QPS", f.QPS))
	if f.CPU.OK {
		c.Lines = append(c.Lines, estimateLine("CPU", f.CPU))
	}
	var extra []string
	if !math.IsNaN(f.ExtraCPU) {
		extra = append(extra, units.MicrosDelta(f.ExtraCPU))
	}
	if !math.IsNaN(f.ExtraAllocs) {
		extra = append(extra, units.Signed(fmt.Sprintf("%.0f", f.ExtraAllocs))+" allocs")
	}
	if !math.IsNaN(f.ExtraBytes) {
		extra = append(extra, signedBytes(f.ExtraBytes))
	}
	if len(extra) > 0 {
		c.Lines = append(c.Lines, strings.Join(extra, ", "))
	}
	if count, _ := commandChange(f.Base, f.Other); count != "" {
		c.Lines = append(c.Lines, count+tripChange(f.Base, f.Other))
	}
	c.Lines = append(c.Lines, pairsText(f))
	return c
}

func estimateLine(name string, e estimate) string {
	if !e.OK {
		return name + " not measured"
	}
	return fmt.Sprintf("%s %s %s %s", name, units.Ratio(e.Value), halfWidth(e), marks[e.Verdict])
}

func signedBytes(b float64) string {
	s := units.DecimalBytes(b)
	if b > 0 {
		return "+" + s
	}
	return strings.Replace(s, "-", "−", 1)
}

// pairsText is "8 pairs", "6 pairs †" (target not reached), or "unpaired, n = 6".
func pairsText(f finding) string {
	if !f.Paired {
		return fmt.Sprintf("unpaired, n = %d", f.QPS.N)
	}
	s := units.Count(f.QPS.N, "pair")
	if !f.Reached {
		s += " †"
	}
	return s
}

// findingID is the anchor of a finding's sentence in the appendix.
func findingID(f finding) string {
	id := "c-" + f.Question + "-" + f.Other.Key
	return strings.NewReplacer("/", "-", "=", "-").Replace(id)
}
