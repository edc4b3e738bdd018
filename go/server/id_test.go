package server

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestParseID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint32
		err  error
	}{
		{"1", 1, nil},
		{"42", 42, nil},
		{"100000", 100000, nil},
		{"4294967295", math.MaxUint32, nil},
		{"", 0, errEmptyID},
		{"0", 0, errZeroID},
		{"00", 0, errLeadZero},
		{"01", 0, errLeadZero},
		{strings.Repeat("0", 10239) + "1", 0, errLeadZero},
		{"4294967296", 0, errIDTooLarge},
		{"9999999999", 0, errIDTooLarge},
		{"99999999999", 0, errIDTooLarge},
		{strings.Repeat("9", 10240), 0, errIDTooLarge},
		{"abc", 0, errNotDigits},
		{"-1", 0, errNotDigits},
		{"+1", 0, errNotDigits},
		{"1.5", 0, errNotDigits},
		{"1e3", 0, errNotDigits},
		{"0x10", 0, errNotDigits},
		{" 1", 0, errNotDigits},
		{"1 ", 0, errNotDigits},
		{"1_000", 0, errNotDigits},
		{"1;DROP TABLE users", 0, errNotDigits},
		{"'", 0, errNotDigits},
		{"١", 0, errNotDigits}, // an Arabic-Indic one: a digit to unicode, not to us
		{"1\x00", 0, errNotDigits},
	} {
		got, err := ParseID(tc.in)
		if got != tc.want || err != tc.err {
			t.Errorf("ParseID(%.20q) = %d, %v; want %d, %v", tc.in, got, err, tc.want, tc.err)
		}
	}
}

func TestParseIDDoesNotAllocate(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { ParseID("4294967295") }); n != 0 {
		t.Errorf("ParseID allocates %v times", n)
	}
}

// FuzzParseID checks ParseID against the definition it implements: s is accepted exactly
// when it is the canonical decimal spelling (strconv's) of a number in 1..4294967295.
// `make test` runs it briefly: go test -run '^$' -fuzz '^FuzzParseID$' -fuzztime 5s ./server
func FuzzParseID(f *testing.F) {
	for _, s := range []string{"1", "42", "4294967295", "4294967296", "0", "01", "", "-1", "+1", "1.5",
		"abc", "%27", "1;DROP TABLE users", "99999999999", " 7", "7\n", "١٢"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseID(s)
		n, perr := strconv.ParseUint(s, 10, 64)
		canonical := perr == nil && n >= 1 && n <= math.MaxUint32 && strconv.FormatUint(n, 10) == s
		switch {
		case canonical && (err != nil || uint64(id) != n):
			t.Fatalf("ParseID(%q) = %d, %v; want %d", s, id, err, n)
		case !canonical && err == nil:
			t.Fatalf("ParseID(%q) = %d, accepted; want an error", s, id)
		case err != nil && id != 0:
			t.Fatalf("ParseID(%q) = %d with error %v; want 0", s, id, err)
		}
	})
}
