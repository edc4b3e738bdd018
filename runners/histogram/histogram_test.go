package histogram

import (
	"strings"
	"testing"
	"time"
)

func TestRecordSaturatesInsteadOfDropping(t *testing.T) {
	h := New()
	Record(h, 0)
	Record(h, time.Hour)
	Record(h, 3*time.Millisecond)
	if h.TotalCount() != 3 {
		t.Fatalf("count %d, want 3: out-of-range values must be kept", h.TotalCount())
	}
	if h.Min() > Lowest || h.Max() < int64(99*time.Second) {
		t.Errorf("min %d max %d: want the range's ends", h.Min(), h.Max())
	}
}

func TestEncodeDecodeMerge(t *testing.T) {
	a, b := New(), New()
	for i := 1; i <= 100; i++ {
		Record(a, time.Duration(i)*time.Millisecond)
		Record(b, time.Duration(i)*time.Microsecond)
	}
	ea, err := Encode(a)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Merge(ea, "", eb)
	if err != nil {
		t.Fatal(err)
	}
	if m.TotalCount() != 200 {
		t.Errorf("merged count %d, want 200", m.TotalCount())
	}
	p := Summarize(m)
	if p.P50 < 90*time.Microsecond || p.P50 > 2*time.Millisecond || p.Max < 99*time.Millisecond {
		t.Errorf("percentiles %v: want a median between the two sets and the max of the slower", p)
	}
	if _, err := Decode("not base64!"); err == nil {
		t.Error("Decode accepted garbage")
	}
	var sb strings.Builder
	if err := WriteHGRM(&sb, m); err != nil || !strings.Contains(sb.String(), "Value\tPercentile") {
		t.Errorf("WriteHGRM: %v, %.80q", err, sb.String())
	}
}
