package units

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// The formats below print figures for people. Where two texts print the same kind of
// figure differently (two or one decimal of a percent), each has its own function
// named for what it prints, so that no text changes when a package adopts one.

// SignedPercent prints a relative change with two decimals and its sign, "+1.23%",
// "-0.50%", and an unbounded end as "+∞" or "-∞" (criterion's interval, stats.Change).
func SignedPercent(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+∞"
	case math.IsInf(x, -1):
		return "-∞"
	}
	return fmt.Sprintf("%+.2f%%", 100*x)
}

// RatioChange prints the change r-1 of a ratio r with one decimal, "+1.2%": "-∞" for a
// ratio of 0 or less (the lower end of an interval without one), "+∞" above any bound,
// "?" when unknown (NaN).
func RatioChange(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+∞"
	case math.IsInf(x, -1), x <= -1:
		return "-∞"
	case math.IsNaN(x):
		return "?"
	}
	return fmt.Sprintf("%+.1f%%", 100*x)
}

// Share prints a fraction of a whole as a percentage without sign: whole from 10%,
// "42%", one decimal below, "4.2%", and "<0.1%" for a share too small to show.
func Share(x float64) string {
	p := 100 * x
	if p > 0 && p < 0.05 {
		return "<0.1%"
	}
	if p < 10 && p != math.Trunc(p) {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// Signed puts a sign before a number already printed: "+25", a true minus for a
// negative one, "−3.1", and "±0" for a zero ("0", "0.0", "-0" is "−0").
func Signed(text string) string {
	if strings.HasPrefix(text, "-") {
		return "−" + text[1:]
	}
	if strings.Trim(text, "0.") == "" {
		return "±0"
	}
	return "+" + text
}

// PlusSign puts "+" before text, the printed x, when x is 0 or more; a negative x keeps
// the hyphen-minus it was printed with, "-3 ms".
func PlusSign(x float64, text string) string {
	if x >= 0 {
		return "+" + text
	}
	return text
}

// Number prints a whole number without decimals, "3", and any other with two, "2.50".
func Number(x float64) string {
	if x == math.Trunc(x) {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// Ratio prints a ratio with two decimals, "0.95×", "1.50×", and one from 10 on, "12.3×":
// the report's sentences and its charts' values write a ratio alike.
func Ratio(r float64) string {
	if r >= 10 {
		return fmt.Sprintf("%.1f×", r)
	}
	return fmt.Sprintf("%.2f×", r)
}

// Count prints n with its noun, singular for exactly 1: "1 variant", "3 variants",
// "2.50 commands" (n as Number prints it). The plural adds "s".
func Count[N int | float64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Number(float64(n)) + " " + noun + "s"
}

// Plural is the word for n things alone, without n: one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// OrDash prints a missing text ("") as "-".
func OrDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Millis prints seconds as milliseconds with two decimals and no space, "12.35ms".
func Millis(sec float64) string { return fmt.Sprintf("%.2fms", sec*1e3) }

// Seconds prints a time of any size with three significant digits, in µs below a
// millisecond and in ms above: "137 µs", "1.27 ms", "47.6 ms".
func Seconds(sec float64) string {
	if math.Abs(sec) < 1e-3 {
		return fmt.Sprintf("%.3g µs", sec*1e6)
	}
	return fmt.Sprintf("%.3g ms", sec*1e3)
}

// DelayMillis prints a delay in milliseconds with the digits it has: "0 ms", "0.2 ms",
// "5 ms" (whole microseconds).
func DelayMillis(d time.Duration) string {
	return fmt.Sprintf("%g ms", float64(d.Microseconds())/1000)
}

// MicrosDelta prints a difference of seconds in microseconds with its sign (Signed):
// "+25 µs", one decimal below 10 µs, "−3.1 µs".
func MicrosDelta(sec float64) string {
	us := 1e6 * sec
	if math.Abs(us) < 10 {
		return Signed(fmt.Sprintf("%.1f", us)) + " µs"
	}
	return Signed(fmt.Sprintf("%.0f", us)) + " µs"
}

// MicrosDeltaIn prints a difference of seconds in microseconds with its sign and the
// decimals given, "+7 µs", "−3.1 µs": for parts that must add up to a total printed
// with the same decimals.
func MicrosDeltaIn(sec float64, decimals int) string {
	return Signed(fmt.Sprintf("%.*f", decimals, 1e6*sec)) + " µs"
}

// Estimate is a figure and its 95% interval as every page and the terminal print one,
// each already formatted: "0.95× [0.93, 0.97]". The one place the shape is written.
func Estimate(x, lo, hi string) string { return x + " [" + lo + ", " + hi + "]" }

// SecondsEstimate is a duration and its interval, each in Seconds' unit: "412µs
// [380µs, 444µs]".
func SecondsEstimate(x, lo, hi float64) string {
	return Estimate(Seconds(x), Seconds(lo), Seconds(hi))
}

// WholeEstimate is a figure and its interval rounded to whole numbers, the unit after
// the figure: "1520 req/s [1480, 1561]".
func WholeEstimate(x, lo, hi float64, unit string) string {
	if unit != "" {
		unit = " " + unit
	}
	return Estimate(fmt.Sprintf("%.0f", x)+unit, fmt.Sprintf("%.0f", lo), fmt.Sprintf("%.0f", hi))
}

// WithInterval prints x and its 95% interval [lo, hi] with the same decimals, as many
// as x's size needs (two below 1, one below 10, none from 10), the unit after x:
// "0.45 µs [0.41, 0.50]", "2.0 [1.9, 2.1]", "96 B [90, 101]"; an unbounded end is ∞
// (−∞), which a figure from fewer pairs than an interval needs has.
func WithInterval(x, lo, hi float64, unit string) string {
	d := 0
	switch a := math.Abs(x); {
	case a < 1:
		d = 2
	case a < 10:
		d = 1
	}
	end := func(v float64) string {
		switch {
		case math.IsInf(v, 1):
			return "∞"
		case math.IsInf(v, -1):
			return "−∞"
		}
		return strings.Replace(fmt.Sprintf("%.*f", d, v), "-", "−", 1)
	}
	if unit != "" {
		unit = " " + unit
	}
	return Estimate(end(x)+unit, end(lo), end(hi))
}

// DecimalBytes prints a size in powers of 1000 with one decimal: "312 B", "4.6 kB",
// "1.2 MB" (negative sizes too, "-4.6 kB"). Halves round away from zero, as a reader
// rounds: a difference of whole bytes, 7551 − 4301 = 3250 B, is "3.3 kB" (fmt alone
// would round the tie to even, "3.2 kB", off the 3250.95 B the medians differ by).
func DecimalBytes(b float64) string {
	a := math.Abs(b)
	switch {
	case a >= 1e6:
		return fmt.Sprintf("%.1f MB", roundTenths(b/1e6))
	case a >= 1e3:
		return fmt.Sprintf("%.1f kB", roundTenths(b/1e3))
	}
	return fmt.Sprintf("%.0f B", math.Round(b))
}

// roundTenths is x rounded to one decimal, halves away from zero.
func roundTenths(x float64) float64 { return math.Round(x*10) / 10 }

// Nanos prints a duration in nanoseconds at its scale with two decimals, "1.50 s",
// "12.35 ms", "3.10 µs", and below a microsecond as a whole, "850 ns".
func Nanos(ns int64) string {
	return scaled(ns, "ns", []scale{{1e9, "s"}, {1e6, "ms"}, {1e3, "µs"}})
}

// BinaryBytes prints a size in powers of 1024 with two decimals, "1.50 GiB", "2.00 MiB",
// "4.50 KiB", and below a KiB as a whole, "312 B".
func BinaryBytes(b int64) string {
	return scaled(b, "B", []scale{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}})
}

// scale is a unit worth size of the base unit.
type scale struct {
	size int64
	unit string
}

// scaled prints n in the largest of scales (largest first) it reaches, with two
// decimals, or as a whole number of base.
func scaled(n int64, base string, scales []scale) string {
	for _, s := range scales {
		if n >= s.size {
			return fmt.Sprintf("%.2f %s", float64(n)/float64(s.size), s.unit)
		}
	}
	return fmt.Sprintf("%d %s", n, base)
}
