package report

import (
	"slices"
	"testing"

	"dbbench/runners/results"
)

// Two invalid variants "were", not "variant wass".
func TestAlertCountsInvalidVariants(t *testing.T) {
	for n, want := range map[int]string{
		1: "1 variant was invalid and left out of every number: see the appendix.",
		2: "2 variants were invalid and left out of every number: see the appendix.",
	} {
		d := &data{run: &results.Run{Status: "complete"}, invalid: make([]*results.Variant, n)}
		if got := d.alerts(nil); !slices.Contains(got, want) {
			t.Errorf("%d invalid: %q, want %q", n, got, want)
		}
	}
}
