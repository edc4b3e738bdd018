package loadgen

import "testing"

func TestErrorSummary(t *testing.T) {
	r := &Result{
		Errors:       map[string]int64{ErrTimeout: 3, ErrConnect: 1, ErrBody: 0, ErrNon2xx: 2},
		ErrorSamples: map[string]string{ErrTimeout: "deadline exceeded", ErrConnect: "connection refused"},
	}
	if got, want := r.ErrorSummary(), "connect 1: connection refused; non2xx 2; timeout 3: deadline exceeded"; got != want {
		t.Errorf("ErrorSummary = %q, want %q", got, want)
	}
	if got := (&Result{Errors: map[string]int64{ErrTimeout: 0}}).ErrorSummary(); got != "" {
		t.Errorf("no errors: %q, want empty", got)
	}
}
