package topology

import (
	"os"
	"slices"
	"strconv"
	"time"
)

// Left lists what a topology of owner's left behind (namespaces) and every link of
// ours that no live runner's namespace accounts for, so that tests (and people) can
// check that nothing is left after a run, however it ended. A link is reported only if
// a second look, a second later, finds it orphaned still: another run removing its
// topology while we look (its namespaces gone between our two reads) is not a leftover.
func Left(owner int) []string {
	var out []string
	for _, name := range namespaces() {
		if o, _, _, ok := parseNS(name); ok && o == owner {
			out = append(out, "namespace "+name)
		}
	}
	orphans := orphanLinks()
	if len(orphans) > 0 {
		time.Sleep(time.Second)
		again := orphanLinks()
		orphans = slices.DeleteFunc(orphans, func(l string) bool { return !slices.Contains(again, l) })
	}
	for _, l := range orphans {
		out = append(out, "link "+l)
	}
	return out
}

// orphanLinks names the links of ours whose subnet no namespace of a live runner
// accounts for: Left reports them, sweepStale deletes them. The links are read before
// the namespaces: a run makes its namespaces before its links and removes its links
// before its namespaces (undoSteps), so a link read first is still accounted for when
// the namespaces are read, unless its run removed all of them in between.
func orphanLinks() []string {
	links := ourLinks()
	live := map[int]bool{}
	for _, name := range namespaces() {
		if o, n, _, ok := parseNS(name); ok && alive(o) {
			live[n] = true
		}
	}
	var out []string
	for _, l := range links {
		if !live[linkSubnet(l)] {
			out = append(out, l)
		}
	}
	return out
}

// namespaces are the names of every namespace of ours, any runner's.
func namespaces() []string {
	var out []string
	ents, _ := os.ReadDir(netnsDir)
	for _, e := range ents {
		if _, _, _, ok := parseNS(e.Name()); ok {
			out = append(out, e.Name())
		}
	}
	return out
}

// ourLinks are the names of every link of ours: bridges and the host ends of veths.
func ourLinks() []string {
	var out []string
	links, _ := os.ReadDir("/sys/class/net")
	for _, l := range links {
		if linkPattern.MatchString(l.Name()) {
			out = append(out, l.Name())
		}
	}
	return out
}

// linkSubnet is N of the link of ours named dbbenchN or dbbenchNrole.
func linkSubnet(name string) int {
	m := linkPattern.FindStringSubmatch(name)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}
