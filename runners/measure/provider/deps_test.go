package provider

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// make deps installs a server's packages only when a run names it (DB=…), so
// runners/install-deps.sh has a case for each server the provider starts, and none
// for a server it does not: a server added here without its packages there would fail
// on a new machine only.
func TestInstallDepsNamesEveryServer(t *testing.T) {
	b, err := os.ReadFile("../../install-deps.sh")
	if err != nil {
		t.Fatal(err)
	}
	var cases []string
	for _, m := range regexp.MustCompile(`(?m)^\s+([a-z0-9.|-]+)\)`).FindAllStringSubmatch(string(b), -1) {
		for _, c := range strings.Split(m[1], "|") {
			if c != "tests" && c != "--tests" {
				cases = append(cases, c)
			}
		}
	}
	slices.Sort(cases)
	want := slices.Sorted(slices.Values(Servers))
	if !slices.Equal(cases, want) {
		t.Errorf("install-deps.sh installs for servers %q; the provider starts %q", cases, want)
	}
}
