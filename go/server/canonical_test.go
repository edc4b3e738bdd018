package server

import "testing"

// A path that ServeMux would clean is a 404, never a redirect (found by runners/chaos).
func TestNonCanonicalPathIsNotFound(t *testing.T) {
	h := New(&fakeFinder{}, Options{})
	for _, p := range []string{"//users/1", "/users//1", "/users/../users/1", "/./hello", "/hello//", "///", "/users/1/.."} {
		w := serve(h, "GET", p)
		if w.Code != 404 {
			t.Errorf("GET %s = %d, want 404", p, w.Code)
			continue
		}
		jsonError(t, w)
	}
	// An encoded slash is part of the id, as ServeMux sees it: a bad id, not another path.
	for _, p := range []string{"/users/%2F", "/users/..%2F..%2Fetc"} {
		if w := serve(h, "GET", p); w.Code != 400 {
			t.Errorf("GET %s = %d, want 400", p, w.Code)
		}
	}
	if w := serve(h, "GET", "/users/1"); w.Code != 200 {
		t.Errorf("GET /users/1 = %d after the check, want 200", w.Code)
	}
}
