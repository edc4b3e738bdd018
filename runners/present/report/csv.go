package report

import (
	"bytes"
	"encoding/csv"
	"math"
	"strconv"

	"dbbench/runners/judge"
	"dbbench/runners/results"
)

// findings.csv holds the report's comparisons as numbers, for a spreadsheet or a
// notebook: the same findings the report words, one row each. Its columns, in order
// (README.md, "findings.csv"):
var csvHead = []string{
	"question",      // layer, stmt, conn, server, db, rows, rev
	"base", "other", // the variants' keys
	"qps_ratio", "qps_lo", "qps_hi", "qps_verdict", // other ÷ base, 95% interval, the mark's word
	"cpu_ratio", "cpu_lo", "cpu_hi", "cpu_verdict", // app CPU per request, the same
	"pairs", "method", "reached_target", // how the estimate was made
	"extra_app_cpu_us", "extra_allocs", "extra_bytes", // differences of medians; empty where not measured
	"base_dials_per_req", "other_dials_per_req", // the server's new connections per request (median of slices); empty where not read
}

// FindingsCSV is j's comparisons as findings.csv.
func FindingsCSV(j *judge.Run) ([]byte, error) {
	p, err := build(j)
	if err != nil {
		return nil, err
	}
	return findingsCSV(p.findings)
}

// findingsCSV writes fs, the findings a page was built from.
func findingsCSV(fs []finding) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(csvHead)
	for _, f := range fs {
		row := []string{f.Question, f.Base.Key, f.Other.Key}
		row = append(row, estimateCells(f.QPS)...)
		row = append(row, estimateCells(f.CPU)...)
		row = append(row, strconv.Itoa(f.QPS.N), f.QPS.Method, strconv.FormatBool(f.Reached),
			number(f.ExtraCPU*1e6), number(f.ExtraAllocs), number(f.ExtraBytes),
			dialsCell(f.Base), dialsCell(f.Other))
		w.Write(row)
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// dialsCell is v's server dials per request, "" where the server's count was not read.
func dialsCell(v *results.Variant) string {
	if dials, _, ok := v.Churns(); ok {
		return number(dials)
	}
	return ""
}

// estimateCells are a ratio, its interval and its verdict; empty where not measured.
func estimateCells(e estimate) []string {
	if !e.OK {
		return []string{"", "", "", ""}
	}
	lo, hi := "", ""
	if e.HasInterval() {
		lo, hi = number(e.Lo), number(e.Hi)
	}
	return []string{number(e.Value), lo, hi, string(e.Verdict)}
}

// number is x in full, "" for NaN (not measured).
func number(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}
