// Package histogram is the one latency histogram format of dbbench: HdrHistograms in
// nanoseconds with one geometry, so that any two merge exactly, stored in results.json
// in HdrHistogram's compressed V2 encoding and written as .hgrm text for people and
// plotters. The load generator records into them; results and reports decode them.
package histogram

import (
	"fmt"
	"io"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram is an HdrHistogram of latencies in nanoseconds.
type Histogram = hdrhistogram.Histogram

// The geometry of every histogram: nanoseconds, 1 µs to 100 s, 3 significant digits.
const (
	Lowest  = int64(time.Microsecond)
	Highest = int64(100 * time.Second)
	Digits  = 3
)

// New returns an empty histogram with the shared geometry.
func New() *Histogram { return hdrhistogram.New(Lowest, Highest, Digits) }

// Record adds one latency, saturated into the histogram's range rather than dropped,
// so that the count stays right.
func Record(h *Histogram, d time.Duration) {
	v := min(max(int64(d), Lowest), Highest)
	_ = h.RecordValue(v)
}

// Percentiles are the latency figures a report shows.
type Percentiles struct {
	Count                    int64
	P50, P90, P99, P999, Max time.Duration
}

// Summarize reads the report's percentiles off a histogram.
func Summarize(h *Histogram) Percentiles {
	v := h.ValueAtPercentilesSlice([]float64{50, 90, 99, 99.9})
	return Percentiles{
		Count: h.TotalCount(),
		P50:   time.Duration(v[0]), P90: time.Duration(v[1]),
		P99: time.Duration(v[2]), P999: time.Duration(v[3]),
		Max: time.Duration(h.Max()),
	}
}

func (p Percentiles) String() string {
	return fmt.Sprintf("n=%d p50=%v p90=%v p99=%v p99.9=%v max=%v", p.Count, p.P50, p.P90, p.P99, p.P999, p.Max)
}

// WriteHGRM writes h in HdrHistogram's percentile-distribution text format, values in
// milliseconds, as wrk2 and the HdrHistogram plotter use it.
func WriteHGRM(w io.Writer, h *Histogram) error {
	if _, err := h.PercentilesPrint(w, 5, float64(time.Millisecond)); err != nil {
		return fmt.Errorf("histogram: write .hgrm: %w", err)
	}
	return nil
}

// Encode returns h in HdrHistogram's compressed V2 encoding (base64), which keeps every
// bucket: decode and merge histograms from several runs or hosts.
func Encode(h *Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("histogram: encode: %w", err)
	}
	return string(b), nil
}

// Decode reverses Encode.
func Decode(s string) (*Histogram, error) {
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("histogram: decode: %w", err)
	}
	return h, nil
}

// Merge decodes encoded histograms and merges them into one; empty strings are skipped.
func Merge(encoded ...string) (*Histogram, error) {
	h := New()
	for _, s := range encoded {
		if s == "" {
			continue
		}
		d, err := Decode(s)
		if err != nil {
			return nil, err
		}
		h.Merge(d)
	}
	return h, nil
}
