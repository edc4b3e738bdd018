package report

import (
	"slices"
	"testing"

	"dbbench/runners/results"
)

// Two invalid variants "were", not "variant wass".
func TestAlertCountsInvalidVariants(t *testing.T) {
	for n, want := range map[int]string{
		1: "1 variant was invalid and left out of every number: see the appendix.",
		2: "2 variants were invalid and left out of every number: see the appendix.",
	} {
		d := &data{run: &results.Run{Status: "complete"}, invalid: make([]*results.Variant, n)}
		if got := d.alerts(nil); !slices.Contains(got, want) {
			t.Errorf("%d invalid: %q, want %q", n, got, want)
		}
	}
}

// A run on namespaces says where each role was and how far apart; a loopback run says
// nothing of it.
func TestTopologyText(t *testing.T) {
	topo := &results.Topology{Kind: "netns",
		Roles: []*results.Place{{Role: "load", Addr: "10.77.5.1"}, {Role: "app", Addr: "10.77.5.3"}, {Role: "db", Addr: "10.77.5.2"}},
		Links: []*results.RoleLink{
			{From: "load", To: "app", Via: "direct", RTT: 15.3e-6},
			{From: "app", To: "db", Via: "direct", RTT: 40.8e-6},
			{From: "app", To: "db", Via: "counting proxy", RTT: 93e-6},
			{From: "load", To: "db", Via: "direct", RTT: 44e-6},
		}}
	want := "netns: load 10.77.5.1, app 10.77.5.3, db 10.77.5.2; round trips load→app 15.3 µs, app→db 40.8 µs"
	if got := topologyText(topo); got != want {
		t.Errorf("topologyText = %q\nwant %q", got, want)
	}
	topo.Kind, topo.Roles[1].Host, topo.Roles[1].Environment = "ssh", "ssh://app@10.77.5.3:22", map[string]string{"cpu-count": "8"}
	want = "ssh: load 10.77.5.1, app 10.77.5.3 (ssh://app@10.77.5.3:22, 8 cores), db 10.77.5.2; round trips load→app 15.3 µs, app→db 40.8 µs"
	if got := topologyText(topo); got != want {
		t.Errorf("topologyText = %q\nwant %q", got, want)
	}
	if got := topologyText(&results.Topology{Kind: "loopback"}); got != "" {
		t.Errorf("loopback: %q", got)
	}
}
