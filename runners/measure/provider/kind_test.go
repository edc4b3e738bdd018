package provider

import "testing"

func TestKindName(t *testing.T) {
	for kind, want := range map[string]string{"": "embedded", "embedded": "embedded", "dsn": "dsn", "testcontainers": "testcontainers"} {
		if got := (Options{Kind: kind}).KindName(); got != want {
			t.Errorf("Kind %q: %q, want %q", kind, got, want)
		}
	}
}
