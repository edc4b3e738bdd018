package golden

import (
	"strings"
	"testing"
)

func lines(n int, change map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := change[i]; ok {
			if s != "" {
				b.WriteString(s + "\n")
			}
			continue
		}
		b.WriteString("line " + string(rune('a'+i-1)) + "\n")
	}
	return b.String()
}

func TestDiff(t *testing.T) {
	for _, c := range []struct {
		name      string
		want, got string
		diff      string
	}{
		{"equal", lines(5, nil), lines(5, nil), ""},
		{"one word", lines(9, nil), lines(9, map[int]string{5: "line E"}),
			"@@ -3,5 +3,5 @@\n  line c\n  line d\n- line e\n+ line E\n  line f\n  line g\n"},
		{"a row dropped at the start", lines(4, nil), lines(4, map[int]string{1: ""}),
			"@@ -1,3 +1,2 @@\n- line a\n  line b\n  line c\n"},
		{"a row added at the end", lines(3, nil), lines(3, nil) + "line z\n",
			"@@ -2,2 +2,3 @@\n  line b\n  line c\n+ line z\n"},
		// Changes four lines apart share a hunk; further apart, each has its own.
		{"near changes, one hunk", lines(12, nil), lines(12, map[int]string{3: "x", 8: "y"}),
			"@@ -1,10 +1,10 @@\n  line a\n  line b\n- line c\n+ x\n  line d\n  line e\n  line f\n  line g\n- line h\n+ y\n  line i\n  line j\n"},
		{"far changes, two hunks", lines(14, nil), lines(14, map[int]string{2: "x", 12: "y"}),
			"@@ -1,4 +1,4 @@\n  line a\n- line b\n+ x\n  line c\n  line d\n@@ -10,5 +10,5 @@\n  line j\n  line k\n- line l\n+ y\n  line m\n  line n\n"},
	} {
		if got := Diff(c.want, c.got); got != c.diff {
			t.Errorf("%s: got\n%s\nwant\n%s", c.name, got, c.diff)
		}
	}
}
