package topology

import (
	"os"
	"strconv"
)

// Left lists what a topology of owner's left behind (namespaces) and every link of
// ours that no live runner's namespace accounts for, so that tests (and people) can
// check that nothing is left after a run, however it ended.
func Left(owner int) []string {
	var out []string
	live := map[int]bool{}
	ents, _ := os.ReadDir(netnsDir)
	for _, e := range ents {
		o, n, _, ok := parseNS(e.Name())
		if !ok {
			continue
		}
		if o == owner {
			out = append(out, "namespace "+e.Name())
		} else if alive(o) {
			live[n] = true
		}
	}
	for _, l := range orphanLinks(live) {
		out = append(out, "link "+l)
	}
	return out
}

// orphanLinks names the links of ours whose subnet no namespace in live accounts for:
// Left reports them, sweepStale deletes them.
func orphanLinks(live map[int]bool) []string {
	var out []string
	links, _ := os.ReadDir("/sys/class/net")
	for _, l := range links {
		m := linkPattern.FindStringSubmatch(l.Name())
		if m == nil {
			continue
		}
		if n, _ := strconv.Atoi(m[1]); !live[n] {
			out = append(out, l.Name())
		}
	}
	return out
}
