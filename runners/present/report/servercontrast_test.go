package report

import (
	"strings"
	"testing"
)

// With both hello variants, question 3's section sets them side by side, says which
// is faster, and puts CPU per request of every role against the cores.
func TestServerContrast(t *testing.T) {
	r := pairedRun(t)
	r.Variants = append(r.Variants, pairedVariant(t, spec{"php", "worker", "hello", "none", "none", "", "", 4, 60000, 18, 0}, 42))
	md, err := Markdown(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	s := string(md)
	sec := s[strings.Index(s, `<a id="q-conn">`):strings.Index(s, `<a id="q-pool">`)]
	for _, want := range []string{
		"| per request | php/worker/hello | go/nethttp/hello |",
		"| app read+write calls | – (recv/send: not counted) | 4.0 |",
		"Why PHP under resident workers answers hello faster than Go under net/http here:",
		"share this machine's 2 cores",
		"Go's net/http (go/server/server.go",
		"What the run does not show:",
	} {
		if !strings.Contains(sec, want) {
			t.Errorf("question 3's section lacks %q:\n%s", want, sec)
		}
	}
	if md, _ := Markdown(judged(t, pairedRun(t))); strings.Contains(string(md), "answers hello faster") {
		t.Errorf("a run without the workers' hello explains it")
	}
}
