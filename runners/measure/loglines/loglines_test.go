package loglines

import "testing"

func TestFirstAndLast(t *testing.T) {
	log := "\n one\ntwo\nthree \n\n"
	for _, tc := range []struct{ got, want string }{
		{First(log, 2), "one | two"},
		{First(log, 5), "one | two | three"},
		{Last(log, 2), "two | three"},
		{Last(log, 5), "one | two | three"},
		{Last("", 3), ""},
		{First("", 3), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("%q, want %q", tc.got, tc.want)
		}
	}
}
