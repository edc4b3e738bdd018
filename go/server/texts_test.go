package server

import "testing"

// n texts of one statement, differing only in a numbering comment; the first is the
// statement itself, and ids spread evenly over them.
func TestStatementTextsDifferOnlyInAComment(t *testing.T) {
	const q = "SELECT id, name FROM users WHERE id = ?"
	if got := StatementTexts(q, 0); len(got) != 1 || got[0] != q {
		t.Fatalf("0 texts: %q, want the statement alone", got)
	}
	texts := StatementTexts(q, 100)
	seen := map[string]int{}
	for id := uint32(1); id <= 1000; id++ {
		seen[TextOf(id, texts)]++
	}
	if len(seen) != 100 || texts[0] != q || texts[99] != q+" /* text 99 */" {
		t.Fatalf("100 texts: %d distinct used, first %q, last %q", len(seen), texts[0], texts[99])
	}
	for text, n := range seen {
		if n != 10 {
			t.Errorf("%q read for %d of 1000 ids, want 10", text, n)
		}
	}
}
