package run

import (
	"context"
	"errors"
	"testing"
)

// The error of an interrupted run or soak names which and wraps ErrInterrupted, as the
// commands and the chaos tests read it.
func TestEnding(t *testing.T) {
	live := context.Background()
	cancelled, cancel := context.WithCancel(live)
	cancel()
	failure := errors.New("boom")

	if status, err := Ending(live, "run", nil); status != "complete" || err != nil {
		t.Errorf("no error: %q, %v", status, err)
	}
	if status, err := Ending(live, "run", failure); status != "failed" || err != failure {
		t.Errorf("an error: %q, %v", status, err)
	}
	for _, what := range []string{"run", "soak"} {
		status, err := Ending(cancelled, what, context.Canceled)
		if want := what + " interrupted: context canceled"; status != "interrupted" || err == nil || err.Error() != want || !errors.Is(err, ErrInterrupted) {
			t.Errorf("%s cancelled: %q, %v; want interrupted, %q wrapping ErrInterrupted", what, status, err, want)
		}
	}
}
