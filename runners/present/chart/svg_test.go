package chart

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestTextWidthUsesDejaVuMetrics(t *testing.T) {
	// DejaVu Sans: "0" is 1303/2048 em, "i" 569/2048; an unknown rune counts as 1 em.
	if got := textWidth("0i", 20.48, false); math.Abs(got-(13.03+5.69)) > 1e-9 {
		t.Errorf("width of 0i at 20.48 px = %v, want 18.72", got)
	}
	if textWidth("ORM", 12, true) <= textWidth("ORM", 12, false) {
		t.Errorf("bold is not wider than regular")
	}
	if got := textWidth("漢", 10, false); got != 10 {
		t.Errorf("an unknown rune is %v px at 10 px, want 10", got)
	}
}

func TestWrapKeepsEveryLineWithinWidth(t *testing.T) {
	s := "PHP under resident workers, PDO at interpolate/persistent over a very_long_unbreakable_identifier_here"
	for _, width := range []float64{60, 120, 300} {
		lines := wrap(s, 12, width, true)
		for _, l := range lines {
			if textWidth(l, 12, true) > width {
				t.Errorf("width %v: line %q is %v px wide", width, l, textWidth(l, 12, true))
			}
		}
		if joined := strings.Join(lines, " "); !strings.HasPrefix(joined, "PHP under") {
			t.Errorf("width %v: %q", width, joined)
		}
	}
	if got := fit("interpolate · per-request", 12, 50, false); !strings.HasSuffix(got, "…") || textWidth(got, 12, false) > 50 {
		t.Errorf("fit gave %q", got)
	}
}

func TestTicks(t *testing.T) {
	if got := niceTicks(0, 12.5, 5); !reflect.DeepEqual(got, []float64{0, 2.5, 5, 7.5, 10, 12.5}) {
		t.Errorf("niceTicks(0, 12.5) = %v", got)
	}
	var vals []float64
	for _, tk := range logTicks(0.2, 60) {
		vals = append(vals, tk.At)
	}
	if !reflect.DeepEqual(vals, []float64{0.2, 0.5, 1, 2, 5, 10, 20, 50}) {
		t.Errorf("logTicks(0.2, 60) = %v", vals)
	}
	// An empty log panel (latency without histograms) has no ticks, and must end.
	for _, r := range [][2]float64{{0, 1}, {-1, 1}, {1, math.Inf(1)}, {math.NaN(), 1}} {
		if got := logTicks(r[0], r[1]); got != nil {
			t.Errorf("logTicks(%v, %v) = %v, want none", r[0], r[1], got)
		}
	}
	if lo, hi := logBounds(0.37, 4.2); lo != 0.2 || hi != 5 {
		t.Errorf("logBounds(0.37, 4.2) = %v, %v", lo, hi)
	}
	// Ratios within a factor 2.5: linear around 1; beyond: log, from one labelled ratio to another.
	if lo, hi, log := ratioBounds(0.9, 1.1); log || lo > 0.9 || hi < 1.1 {
		t.Errorf("ratioBounds(0.9, 1.1) = %v, %v, log %v", lo, hi, log)
	}
	if lo, hi, log := ratioBounds(0.33, 5.1); !log || lo != 0.3 || hi != 10 {
		t.Errorf("ratioBounds(0.33, 5.1) = %v, %v, log %v", lo, hi, log)
	}
	if number(52857) != "52.857k" || number(0.25) != "0.25" || number(2e6) != "2M" {
		t.Errorf("number: %s %s %s", number(52857), number(0.25), number(2e6))
	}
}

// A forest panel's labels are measured: the label column never takes more than 42%
// of the width, and a long label wraps onto more lines rather than running under the plot.
func TestForestPanelWrapsLongLabels(t *testing.T) {
	p := Forest{Title: "t", XLabel: "ratio", Width: 300, Rows: []ForestRow{
		{Label: "Illuminate query builder with a much longer name than fits", Est: 0.5, Lo: 0.4, Hi: 0.6, Value: "0.50×", Color: "#000", Tip: "builder: 0.50×"},
		{Label: "PDO", Est: 1.2, Value: "1.20×", Color: "#000"},
	}}
	svg := p.SVG()
	if strings.Contains(svg, "much longer name than fits<") {
		t.Errorf("the long label was drawn on one line:\n%s", svg)
	}
	for _, want := range []string{">0.50×<", ">1.20×<", "<title>", `stroke-dasharray="4 3"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
}

// A legend's swatch draws its entry as the charts draw the series: a pale box outlined
// in the colour for a hollow entry, a dashed line for a dashed one.
func TestSwatchDrawsAsTheChartsDo(t *testing.T) {
	for _, c := range []struct {
		item LegendItem
		want string
	}{
		{LegendItem{Color: "#0072B2"}, `fill="#0072B2">`},
		{LegendItem{Color: "#0072B2", Hollow: true}, `fill="#c0dcec" stroke="#0072B2"`},
		{LegendItem{Color: "#0072B2", Line: true, Dash: true}, `stroke-dasharray="5 3"`},
	} {
		if got := Swatch(c.item); !strings.Contains(got, c.want) {
			t.Errorf("Swatch(%+v) = %s, want it to contain %s", c.item, got, c.want)
		}
	}
}
