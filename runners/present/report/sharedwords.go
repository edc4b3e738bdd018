package report

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"dbbench/runners/internal/words"
	"dbbench/runners/judge/findings"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/units"
)

// The names and phrases the answers, tables and appendix share: a language, a server,
// a library, a ratio with its interval, the decision marks, a change in commands.

// langName is a language as people write it.
func langName(lang string) string {
	switch lang {
	case "go":
		return "Go"
	case "php":
		return "PHP"
	}
	return lang
}

// serverName is a server as people know it.
func serverName(server string) string {
	switch server {
	case "fpm":
		return "php-fpm"
	case "worker":
		return "resident workers"
	case "nethttp":
		return "net/http"
	}
	return server
}

// dbName is the database server v ran on, as its users name it (matrix.yaml's dbs
// title, recorded with the variant).
func dbName(v *results.Variant) string { return cmp.Or(v.DatabaseTitle, v.Database) }

// library is the name a layer's users know it by.
func library(v *results.Variant) string {
	if v.Library != "" {
		return v.Library
	}
	return v.Layer
}

// layerName is "beego (Beego ORM v2)", or "sqlx" when the library is named as the
// layer (in any case: "eloquent" is Eloquent).
func layerName(v *results.Variant) string {
	if l := library(v); !strings.EqualFold(l, v.Layer) {
		return fmt.Sprintf("%s (%s)", v.Layer, l)
	}
	return v.Layer
}

// shortLibrary drops what follows a "+" ("database/sql + go-sql-driver/mysql" is
// database/sql) and a trailing version word, for sentences.
func shortLibrary(v *results.Variant) string {
	s, _, _ := strings.Cut(library(v), " + ")
	return strings.TrimSpace(s)
}

// ratioCI is "0.95× [0.93, 0.97]", the ratio and why it has no interval where it has
// none, or "not measured".
func ratioCI(e estimate) string {
	switch {
	case !e.OK:
		return "not measured"
	case !e.HasInterval():
		return fmt.Sprintf("%s (no interval: %d pairs)", units.Ratio(e.Value), e.N)
	}
	return units.Estimate(units.Ratio(e.Value), fmt.Sprintf("%.2f", e.Lo), fmt.Sprintf("%.2f", e.Hi))
}

// halfWidth is "±2%", "±0.6%", or "no interval".
func halfWidth(e estimate) string {
	h := e.HalfWidth()
	switch {
	case math.IsInf(h, 1):
		return "no interval"
	case h < 0.01:
		return fmt.Sprintf("±%.1f%%", 100*h)
	}
	return fmt.Sprintf("±%.0f%%", 100*h)
}

// marks are the signs of a decision in tables, explained by markLegend.
var marks = map[stats.Decision]string{
	stats.Different:             "●",
	stats.DifferentWithinMargin: "◐",
	stats.Equivalent:            "=",
	stats.Undecided:             "?",
}

// marksLegendStart opens markLegend: a table note that holds it is found by it (page.go,
// onceEach).
var marksLegendStart = "● differs by more than " + marginText

// marginText is the findings' margin as the legend says it: "2%".
var marginText = words.Percent(findings.Margin)

func markLegend(p *results.Pairing) string { return markLegendAt(marginText, target(p)) }

// markLegendAt explains the marks at margin m ("2%"), † against the precision target.
func markLegendAt(m, target string) string {
	return "● differs by more than " + m + " (the 95% interval excludes 1 and reaches past ±" + m + "); " +
		"◐ differs, by less than " + m + "; = " + term("equivalent", "marks") + " within ±" + m + "; ? undecided: more pairs needed; " +
		"† the comparison stopped at the end of its budget, before its intervals were within the " + target + " " + term("target", "precision-target") + "."
}

// Mark is d's sign, as the report's tables print it.
func Mark(d stats.Decision) string { return marks[d] }

// MarksLegend is markLegend in plain words, for the terminal, whose closing table marks
// each ratio, and each comparison cut short, as the report's tables do.
func MarksLegend() string { return termMark.ReplaceAllString(markLegend(nil), "$1") }

// MarksLegendAt is the same legend at margin m, a fraction (dbbench ab's threshold).
func MarksLegendAt(m float64) string {
	return termMark.ReplaceAllString(markLegendAt(words.Percent(m), target(nil)), "$1")
}

// commandsTerm marks "commands" in "3 → 1 commands" for the glossary, which says what
// counts as a command and as a round trip.
func commandsTerm(count string) string {
	return strings.Replace(count, "commands", term("commands", "commands"), 1)
}

// commandChange says how the commands per request change from base to other, as a
// count, "3 → 1 commands", and by name, "−Prepare −Execute −Close stmt +Query"; both ""
// when nothing changes or a side was not captured.
func commandChange(base, other *results.Variant) (count, names string) {
	cb, okB := commands(base)
	co, okO := commands(other)
	if !okB || !okO {
		return "", ""
	}
	var less, more []string
	b, o := counts(base), counts(other)
	for _, k := range base.Roundtrips.Speaks().Ordered(b, o) {
		switch {
		case o[k] > b[k]:
			more = append(more, "+"+k)
		case o[k] < b[k]:
			less = append(less, "−"+k)
		}
	}
	if len(less)+len(more) == 0 {
		return "", ""
	}
	return fmt.Sprintf("%s → %s %s", units.Number(cb), units.Number(co), base.Roundtrips.Protocol.Commands()), strings.Join(append(less, more...), " ")
}

// counts are v's commands per request by name (wire counts when present).
func counts(v *results.Variant) map[string]float64 {
	if v.Roundtrips == nil {
		return map[string]float64{}
	}
	return v.Roundtrips.PerCommand()
}
