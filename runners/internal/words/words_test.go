package words

import (
	"testing"
	"testing/fstest"
)

func TestSayJoinsLinesAndKeepsParagraphs(t *testing.T) {
	fsys := fstest.MapFS{"words.tmpl": {Data: []byte(`{{define "a"}}
One {{.N}} slices
  of {{pct .M}}.

Second
paragraph{{if .Q}}, quoted{{end}}.
{{end}}`)}}
	b := Load(fsys, "*.tmpl")
	got := b.Say("a", struct {
		N int
		M float64
		Q bool
	}{3, 0.02, true})
	if want := "One 3 slices of 2%.\nSecond paragraph, quoted."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSayPanicsOnAMissingTemplate(t *testing.T) {
	b := Load(fstest.MapFS{"words.tmpl": {Data: []byte(`{{define "a"}}x{{end}}`)}}, "*.tmpl")
	defer func() {
		if recover() == nil {
			t.Error("no panic for a missing template")
		}
	}()
	b.Say("b", nil)
}

func TestAPicksTheArticleByTheFirstLetter(t *testing.T) {
	for noun, want := range map[string]string{"COM_PING": "a COM_PING", "empty query": "an empty query", "ping": "a ping", "Echo": "an Echo"} {
		if got := A(noun); got != want {
			t.Errorf("A(%q) = %q, want %q", noun, got, want)
		}
	}
}
