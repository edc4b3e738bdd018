package run

import (
	"slices"
	"testing"
	"time"
)

// A phase that finished early leaves what it did not spend to the languages after it,
// in proportion to their shares; one that overran takes nothing from them.
func TestCarryUnspentBudget(t *testing.T) {
	b := map[string]time.Duration{"go": 3 * time.Minute, "php": 2 * time.Minute, "rust": time.Minute}
	carry(b, 90*time.Second, []string{"php", "rust"})
	if b["php"] != 3*time.Minute || b["rust"] != 90*time.Second || b["go"] != 3*time.Minute {
		t.Errorf("after 90 s unspent: %v, want go 3m, php 3m, rust 1m30s", b)
	}
	carry(b, -time.Minute, []string{"rust"})
	carry(b, time.Minute, nil)
	if b["rust"] != 90*time.Second {
		t.Errorf("an overrun or nothing left to measure changed the budgets: %v", b)
	}
}

// The largest share is measured first, so that what it leaves goes to the others;
// equal shares keep their order.
func TestMeasureOrderLargestShareFirst(t *testing.T) {
	b := map[string]time.Duration{"go": 3 * time.Minute, "php": 4 * time.Minute, "rust": 3 * time.Minute}
	if got := measureOrder([]string{"go", "php", "rust"}, b); !slices.Equal(got, []string{"php", "go", "rust"}) {
		t.Errorf("order %v, want php go rust", got)
	}
}
