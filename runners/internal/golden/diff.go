package golden

import (
	"fmt"
	"strings"
)

// context is how many unchanged lines a hunk shows around its changes, as diff -u.
const context = 2

// Diff is a unified-style diff of two texts by line: hunks headed "@@ -a,n +b,m @@",
// lines only in want marked "-", only in got "+". It is "" when they are equal.
func Diff(want, got string) string {
	a, b := split(want), split(got)
	ops := edits(a, b)
	var out strings.Builder
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		// A hunk: from context lines before the first change to context lines after
		// the last change that is followed by fewer than 2·context unchanged lines.
		start := max(0, i-context)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].kind != ' ' {
				end = j + 1
			} else if j-end >= 2*context {
				break
			}
		}
		end = min(len(ops), end+context)
		hunk(&out, ops[start:end])
		i = end
	}
	return out.String()
}

// op is one line of the edit script: ' ' in both, '-' only in a, '+' only in b; ai and
// bi are its 0-based line numbers on each side (the next line's, where it has none).
type op struct {
	kind   byte
	line   string
	ai, bi int
}

func hunk(out *strings.Builder, ops []op) {
	na, nb := 0, 0
	for _, o := range ops {
		if o.kind != '+' {
			na++
		}
		if o.kind != '-' {
			nb++
		}
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", ops[0].ai+1, na, ops[0].bi+1, nb)
	for _, o := range ops {
		fmt.Fprintf(out, "%c %s\n", o.kind, o.line)
	}
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// edits is the shortest edit script from a to b: the common prefix and suffix are cut
// first, so a report with one changed sentence costs only the lines between.
func edits(a, b []string) []op {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []op
	for i := range p {
		ops = append(ops, op{' ', a[i], i, i})
	}
	ma, mb := a[p:len(a)-s], b[p:len(b)-s]
	// lcs[i][j] is the longest common subsequence of ma[i:] and mb[j:].
	lcs := make([][]int32, len(ma)+1)
	for i := range lcs {
		lcs[i] = make([]int32, len(mb)+1)
	}
	for i := len(ma) - 1; i >= 0; i-- {
		for j := len(mb) - 1; j >= 0; j-- {
			if ma[i] == mb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(ma) || j < len(mb) {
		switch {
		case i < len(ma) && j < len(mb) && ma[i] == mb[j]:
			ops = append(ops, op{' ', ma[i], p + i, p + j})
			i, j = i+1, j+1
		case j == len(mb) || (i < len(ma) && lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', ma[i], p + i, p + j})
			i++
		default:
			ops = append(ops, op{'+', mb[j], p + i, p + j})
			j++
		}
	}
	for k := range s {
		ops = append(ops, op{' ', a[len(a)-s+k], len(a) - s + k, len(b) - s + k})
	}
	return ops
}
