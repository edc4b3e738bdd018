package units

import (
	"math"
	"testing"
	"time"
)

// Each format against the texts its callers printed before they shared it.
func TestFormats(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	for _, tc := range []struct {
		name, got, want string
	}{
		{"SignedPercent", SignedPercent(0.0123), "+1.23%"},
		{"SignedPercent negative", SignedPercent(-0.005), "-0.50%"},
		{"SignedPercent zero", SignedPercent(0), "+0.00%"},
		{"SignedPercent at -100%", SignedPercent(-1), "-100.00%"},
		{"SignedPercent +Inf", SignedPercent(inf), "+∞"},
		{"SignedPercent -Inf", SignedPercent(-inf), "-∞"},

		{"RatioChange", RatioChange(0.0123), "+1.2%"},
		{"RatioChange negative", RatioChange(-0.25), "-25.0%"},
		{"RatioChange ratio 0", RatioChange(-1), "-∞"},
		{"RatioChange +Inf", RatioChange(inf), "+∞"},
		{"RatioChange -Inf", RatioChange(-inf), "-∞"},
		{"RatioChange NaN", RatioChange(nan), "?"},

		{"WithInterval below 1", WithInterval(0.452, 0.41, 0.5, "µs"), "0.45 µs [0.41, 0.50]"},
		{"WithInterval below 10", WithInterval(2.04, 1.93, 2.1, ""), "2.0 [1.9, 2.1]"},
		{"WithInterval from 10", WithInterval(96.4, 89.6, 101.2, "B"), "96 B [90, 101]"},
		{"WithInterval negative, unbounded", WithInterval(-0.3, inf*-1, inf, "µs"), "−0.30 µs [−∞, ∞]"},

		{"Ratio below 1", Ratio(0.954), "0.95×"},
		{"Ratio", Ratio(1.5), "1.50×"},
		{"Ratio from 10", Ratio(12.34), "12.3×"},

		{"Share whole", Share(0.42), "42%"},
		{"Share below 10%", Share(0.042), "4.2%"},
		{"Share whole below 10%", Share(0.04), "4%"},
		{"Share one decimal", Share(0.015), "1.5%"},
		{"Share tiny", Share(0.0001), "<0.1%"},
		{"Share zero", Share(0), "0%"},
		{"Share all", Share(1), "100%"},

		{"Signed positive", Signed("25"), "+25"},
		{"Signed negative", Signed("-3.1"), "−3.1"},
		{"Signed zero", Signed("0"), "±0"},
		{"Signed zero decimal", Signed("0.0"), "±0"},
		{"Signed minus zero", Signed("-0"), "−0"},

		{"PlusSign positive", PlusSign(3, "3 ms"), "+3 ms"},
		{"PlusSign zero", PlusSign(0, "0 ms"), "+0 ms"},
		{"PlusSign negative", PlusSign(-3, "-3 ms"), "-3 ms"},
		{"PlusSign NaN", PlusSign(nan, "NaN"), "NaN"},

		{"Number whole", Number(3), "3"},
		{"Number fraction", Number(2.5), "2.50"},
		{"Number negative", Number(-1.234), "-1.23"},

		{"Count one", Count(1, "variant"), "1 variant"},
		{"Count many", Count(3, "variant"), "3 variants"},
		{"Count none", Count(0, "variant"), "0 variants"},
		{"Count float one", Count(1.0, "command"), "1 command"},
		{"Count float whole", Count(4.0, "round trip"), "4 round trips"},
		{"Count float fraction", Count(2.5, "command"), "2.50 commands"},

		{"Plural one", Plural(1, "key differs", "keys differ"), "key differs"},
		{"Plural many", Plural(2, "key differs", "keys differ"), "keys differ"},
		{"Plural none", Plural(0, "regression", "regressions"), "regressions"},

		{"OrDash empty", OrDash(""), "-"},
		{"OrDash text", OrDash("quick"), "quick"},

		{"Millis", Millis(0.012345), "12.35ms"},
		{"Millis zero", Millis(0), "0.00ms"},

		{"MicrosDelta large", MicrosDelta(25e-6), "+25 µs"},
		{"MicrosDelta small", MicrosDelta(-3.1e-6), "−3.1 µs"},
		{"MicrosDelta zero", MicrosDelta(0), "±0 µs"},
		{"MicrosDelta negative large", MicrosDelta(-120e-6), "−120 µs"},
		{"MicrosDeltaIn whole", MicrosDeltaIn(7e-6, 0), "+7 µs"},
		{"MicrosDeltaIn decimal", MicrosDeltaIn(-3.14e-6, 1), "−3.1 µs"},

		{"DecimalBytes B", DecimalBytes(312), "312 B"},
		{"DecimalBytes kB", DecimalBytes(4600), "4.6 kB"},
		{"DecimalBytes MB", DecimalBytes(1.2e6), "1.2 MB"},
		{"DecimalBytes a tie rounds away from zero", DecimalBytes(3250), "3.3 kB"},
		{"DecimalBytes a negative tie", DecimalBytes(-3250), "-3.3 kB"},
		{"DecimalBytes negative", DecimalBytes(-4600), "-4.6 kB"},

		{"Nanos s", Nanos(1_500_000_000), "1.50 s"},
		{"Nanos ms", Nanos(12_345_678), "12.35 ms"},
		{"Nanos µs", Nanos(3_100), "3.10 µs"},
		{"Nanos ns", Nanos(850), "850 ns"},
		{"BinaryBytes GiB", BinaryBytes(3 << 29), "1.50 GiB"},
		{"BinaryBytes MiB", BinaryBytes(2 << 20), "2.00 MiB"},
		{"BinaryBytes KiB", BinaryBytes(4608), "4.50 KiB"},
		{"BinaryBytes B", BinaryBytes(312), "312 B"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}

func TestSecondsAndDelayMillis(t *testing.T) {
	for sec, want := range map[float64]string{137e-6: "137 µs", 0.00127: "1.27 ms", 0.0476: "47.6 ms", 0: "0 µs"} {
		if got := Seconds(sec); got != want {
			t.Errorf("Seconds(%g) = %q, want %q", sec, got, want)
		}
	}
	for d, want := range map[time.Duration]string{0: "0 ms", 200 * time.Microsecond: "0.2 ms", 5 * time.Millisecond: "5 ms"} {
		if got := DelayMillis(d); got != want {
			t.Errorf("DelayMillis(%v) = %q, want %q", d, got, want)
		}
	}
}
