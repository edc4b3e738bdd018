package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// firstScreenWords is the words of a report.md before its run line ("Run of …"), the
// answers a reader sees first, without the charts' image lines.
func firstScreenWords(md string) int {
	n := 0
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "Run of ") {
			break
		}
		if !strings.HasPrefix(line, "![") {
			n += len(strings.Fields(line))
		}
	}
	return n
}

// The quick preset's first screen fits one screen, about 250 words, on MariaDB and on
// PostgreSQL: the committed samples of today's answers are held to it, so that a
// sentence added to an answer is paid for by one made shorter.
func TestQuickFirstScreenWithin250Words(t *testing.T) {
	if got := firstScreenWords("# t\n\nOne two three.\n\n![chart](c.svg)\n\nfour five\n\nRun of 2026 six"); got != 7 {
		t.Fatalf("the count itself: %d words, want 7", got)
	}
	for _, sample := range []string{"quick-shipped", "postgres-shipped"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "reports", "sample", sample, "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		if n := firstScreenWords(string(b)); n > 250 {
			t.Errorf("reports/sample/%s: its first screen is %d words, over 250", sample, n)
		} else {
			t.Logf("reports/sample/%s: %d words", sample, n)
		}
	}
}
