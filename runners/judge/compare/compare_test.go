package compare

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"dbbench/runners/judge/compare/comparetest"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

func run(t *testing.T, old, new *results.Run) *Result {
	t.Helper()
	r, err := Compare(old, new, Options{Margin: 0.03, OldLabel: "old", NewLabel: "new"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// notUnchanged returns the rows whose verdict is anything but unchanged.
// notUnchanged are r's rows with a verdict of change: "cannot tell" is none.
func notUnchanged(r *Result) []Row {
	var out []Row
	for _, row := range r.Rows {
		if row.Verdict != Unchanged && row.Verdict != CannotTellVerdict {
			out = append(out, row)
		}
	}
	return out
}

func find(r *Result, kind Kind, variant, unit string) *Row {
	for i, row := range r.Rows {
		if row.Kind == kind && row.Variant == variant && row.Unit == unit {
			return &r.Rows[i]
		}
	}
	return nil
}

func count(r *Result, kind Kind) int {
	n := 0
	for _, row := range r.Rows {
		if row.Kind == kind {
			n++
		}
	}
	return n
}

// Every kind has rows in the synthetic runs, so "nothing regressed" is not vacuous.
func checkKinds(t *testing.T, r *Result) {
	t.Helper()
	for _, k := range Kinds {
		if count(r, k) == 0 {
			t.Fatalf("no %s rows", k)
		}
	}
}

// Identical runs: nothing changed, nothing to fail on, the yardstick at exactly 1.
func TestIdenticalRuns(t *testing.T) {
	r := run(t, comparetest.Run(1), comparetest.Run(1))
	checkKinds(t, r)
	if rows := notUnchanged(r); len(rows) > 0 {
		t.Errorf("identical runs: %d rows changed, first %+v", len(rows), rows[0])
	}
	if r.Gate.Fails || !r.Environment.Match || !r.Yardstick.Normalised || r.Yardstick.Moved || r.Yardstick.Speed.Value != 1 {
		t.Errorf("gate %+v, environment match %v, yardstick %+v", r.Gate, r.Environment.Match, r.Yardstick)
	}
	s := r.String()
	for _, want := range []string{"environment: the same", "machine speed new/old 1.000×", "--fail-on regression passes", "largest changes: none"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(s, EnvironmentChanged) {
		t.Errorf("identical runs labelled %q", EnvironmentChanged)
	}
}

// Every speed-dependent figure and the yardstick on a machine 0.6 times as fast (QPS
// times 0.6, latency and CPU per request divided by it; counts do not depend on speed,
// so they stay): nothing regressed, every absolute figure changed as it is and is
// explained by the yardstick, and the output says environment changed. Over many
// independent pairs of runs, so that the rule is shown to hold against the noise too.
func TestSlowerMachineIsNotARegression(t *testing.T) {
	for seed := uint64(2); seed < 22; seed++ {
		new := comparetest.Run(seed)
		comparetest.Machine(new, 0.6)
		r := run(t, comparetest.Run(1), new)
		checkKinds(t, r)
		for _, row := range r.Rows {
			if row.Verdict == Regressed {
				t.Errorf("seed %d: %s %s %s regressed %+v", seed, row.Kind, row.Variant, row.Unit, row.Judged)
			}
			if row.Kind == Absolute && (!row.Explained || !strings.Contains(strings.Join(row.Labels, ";"), EnvironmentChanged)) {
				t.Errorf("seed %d: %s %s: explained %v, labels %q", seed, row.Variant, row.Unit, row.Explained, row.Labels)
			}
		}
		if !r.Yardstick.Moved || r.Gate.Fails {
			t.Errorf("seed %d: yardstick moved %v, gate %+v", seed, r.Yardstick.Moved, r.Gate)
		}
		if s := r.String(); !strings.Contains(s, "environment changed; absolute figures are judged relative to it") {
			t.Errorf("seed %d: output does not say the environment changed:\n%s", seed, s[:min(len(s), 1500)])
		}
	}
}

// onlyVariant checks that every row that changed belongs to key, and that key
// regressed in the given kinds.
func onlyVariant(t *testing.T, r *Result, key string, kinds ...Kind) {
	t.Helper()
	for _, row := range notUnchanged(r) {
		if row.Variant != key {
			t.Errorf("%s %s %s: %s %+v; only %s should change", row.Kind, row.Variant, row.Unit, row.Verdict, row.Judged, key)
		}
	}
	for _, k := range kinds {
		unit := units.QPS
		row := find(r, k, key, unit)
		if row == nil || row.Verdict != Regressed || !row.Gate {
			t.Errorf("%s %s %s: %+v, want regressed and gated", k, key, unit, row)
		}
	}
}

// One variant 10% slower, the machine the same: that variant regressed, as an absolute
// figure and as a within-run ratio, and no other.
func TestOneVariantSlower(t *testing.T) {
	new := comparetest.Run(2)
	comparetest.Slow(new, comparetest.Gorm, 0.9)
	r := run(t, comparetest.Run(1), new)
	onlyVariant(t, r, comparetest.Gorm, Absolute, Ratio)
	if r.Yardstick.Moved || !r.Gate.Fails || len(r.Gate.Variants) != 1 || r.Gate.Variants[0] != comparetest.Gorm {
		t.Errorf("yardstick moved %v, gate %+v", r.Yardstick.Moved, r.Gate)
	}
	if row := find(r, Absolute, comparetest.Gorm, units.QPS); row.Judged.Mid > -0.07 || row.Judged.Mid < -0.13 {
		t.Errorf("QPS change %+v, want about -10%%", row.Judged)
	}
}

// The machine 0.6 times as fast and one variant 10% slower than that: that variant
// regressed, by about 10% relative to the yardstick, and no other.
func TestSlowerMachineAndOneVariantSlower(t *testing.T) {
	new := comparetest.Run(2)
	comparetest.Machine(new, 0.6)
	comparetest.Slow(new, comparetest.Gorm, 0.9)
	r := run(t, comparetest.Run(1), new)
	onlyVariant(t, r, comparetest.Gorm, Absolute, Ratio)
	row := find(r, Absolute, comparetest.Gorm, units.QPS)
	if row.AsIs.Mid > -0.4 || row.Judged.Mid > -0.07 || row.Judged.Mid < -0.13 || !slicesContain(row.Labels, EnvironmentChanged) {
		t.Errorf("QPS: as is %+v, judged %+v, labels %q; want about -46%% as is, -10%% judged, environment changed", row.AsIs, row.Judged, row.Labels)
	}
	if p50 := find(r, Absolute, comparetest.Gorm, units.P50); !slicesContain(p50.Labels, LatencyApprox) {
		t.Errorf("p50 labels %q, want %q", p50.Labels, LatencyApprox)
	}
}

// Two more commands per request: a count change, whatever the noise threshold, and the
// gate fails on it; nothing else changed.
func TestTwoMoreCommandsIsACountChange(t *testing.T) {
	key := comparetest.Key("php", "fpm", "raw", "interpolate", "persistent", 8)
	new := comparetest.Run(2)
	comparetest.AddCommands(new, key, 2)
	r, err := Compare(comparetest.Run(1), new, Options{Margin: 0.5}) // a 50% threshold changes nothing for counts
	if err != nil {
		t.Fatal(err)
	}
	row := find(r, Count, key, units.Commands)
	if row == nil || row.Verdict != Changed || float64(row.New-row.Old) != 2 || !row.Gate {
		t.Fatalf("commands/op row %+v, want changed by +2 and gated", row)
	}
	for _, row := range notUnchanged(r) {
		if row.Variant != key || row.Kind != Count {
			t.Errorf("%s %s %s changed too", row.Kind, row.Variant, row.Unit)
		}
	}
	if q := find(r, Count, key, "Query/op"); q == nil || q.Verdict != Changed || q.Old != 1 || q.New != 3 {
		t.Errorf("Query/op row %+v, want 1 → 3", q)
	}
	if r.Gate.CountChanges != 3 || r.Gate.Regressions != 0 || !r.Gate.Fails { // commands/op, roundtrips/op, Query/op
		t.Errorf("gate %+v, want 3 count changes", r.Gate)
	}
	s := r.String()
	_, largest, _ := strings.Cut(s, "largest changes\n")
	first, _, _ := strings.Cut(largest, "\n")
	if !strings.Contains(s, "deterministic counts  3 changed (3 up, 0 down)") ||
		!strings.Contains(first, "changed") || !strings.Contains(first, "count") || !strings.Contains(first, "php/fpm/raw/interpolate/persistent/pool=8") ||
		!strings.Contains(first, "Query/op") || !strings.Contains(first, "+2.00") {
		t.Errorf("output does not name the count change first:\n%s", s[:min(len(s), 2500)])
	}
}

// A run saved before the yardstick, pairing and counts: compared, with notes saying what
// could not be normalised, and its absolute verdicts never gate.
func TestOldRunWithoutYardstick(t *testing.T) {
	old := comparetest.Run(1)
	comparetest.Old(old)
	new := comparetest.Run(2)
	comparetest.Machine(new, 0.6)
	r := run(t, old, new)
	checkKinds(t, r)
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{
		"old run has no yardstick (made before dbbench timed one): absolute figures are shown as they are (labelled not normalised) and cannot be told",
		"old run has no paired comparisons",
		"old run has no to-db-B/op, from-db-B/op, allocs/op",
		"the hello variants (the HTTP stack alone, no database) moved as they are",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	for _, row := range r.Rows {
		switch row.Kind {
		case Absolute:
			if !slicesContain(row.Labels, NotNormalised) || row.Gate || row.Verdict != CannotTellVerdict {
				t.Errorf("%s %s: %s, labels %q, gate %v; want cannot tell", row.Variant, row.Unit, row.Verdict, row.Labels, row.Gate)
			}
		case Ratio:
			if !slicesContain(row.Labels, Unpaired+" (old run)") || row.Verdict == Regressed {
				t.Errorf("%s %s: %s, labels %q", row.Variant, row.Unit, row.Verdict, row.Labels)
			}
		}
	}
	// Without a yardstick no hello variant agrees with one, and none contradicts it.
	if r.Gate.Fails || !r.Gate.CannotTell || r.Yardstick.Normalised || r.Yardstick.Contradicted {
		t.Errorf("gate %+v, normalised %v, contradicted %v", r.Gate, r.Yardstick.Normalised, r.Yardstick.Contradicted)
	}
	if s := r.String(); !strings.Contains(s, "yardstick: the old run has none: absolute figures are shown as they are (not normalised), and cannot be told") {
		t.Errorf("summary does not say what is not normalised:\n%s", s[:1000])
	}
}

// A results.json of schema v1 (a trimmed copy of the committed quick sample, read
// through results.Read's upgrade) compares with itself and with a later run.
func TestSchemaV1File(t *testing.T) {
	old, err := results.Read("testdata/v1-quick.json")
	if err != nil {
		t.Fatal(err)
	}
	if old.Schema != results.Schema || old.Yardstick != nil || len(old.Comparisons) > 0 {
		t.Fatalf("testdata is no longer a v1 run read back: schema %s", old.Schema)
	}
	new, _ := results.Read("testdata/v1-quick.json")
	r := run(t, old, new)
	// Without a yardstick absolute figures cannot be told: the rest is unchanged.
	if rows := notUnchanged(r); len(rows) > 0 || count(r, Ratio) == 0 || count(r, Count) == 0 || count(r, Absolute) == 0 {
		t.Errorf("v1 against itself: %d rows changed; %d ratio, %d count, %d absolute rows", len(rows), count(r, Ratio), count(r, Count), count(r, Absolute))
	}
	if !r.cannotTell(Absolute, units.QPS, "") || r.cannotTell(Count, "commands/op", "") {
		t.Errorf("v1 against itself: cannot tell %+v, want absolute figures only", r.CannotTell)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "neither run has a yardstick") {
		t.Errorf("notes: %q", r.Notes)
	}
	// A later run with a yardstick: only the old side lacks one.
	new.Yardstick = comparetest.Run(1).Yardstick
	r = run(t, old, new)
	if !strings.Contains(strings.Join(r.Notes, "\n"), "old run has no yardstick") || r.Yardstick.New == nil {
		t.Errorf("notes: %q", r.Notes)
	}
}

// The hello variants are a second yardstick: when they stay while the fixed work says
// the machine is 0.6 times as fast, the output says the two disagree, and absolute
// figures cannot be told.
func TestHelloDisagreesWithYardstick(t *testing.T) {
	new := comparetest.Run(2)
	comparetest.Machine(new, 0.6)
	for _, v := range new.Variants {
		if !v.DB {
			comparetest.Slow(new, v.Key, 1/0.6)
		}
	}
	r := run(t, comparetest.Run(1), new)
	if len(r.Yardstick.Hello) != 2 || r.Yardstick.Hello[0].Agrees || !r.Yardstick.Contradicted {
		t.Fatalf("hello: %+v, contradicted %v", r.Yardstick.Hello, r.Yardstick.Contradicted)
	}
	checkCannotTell(t, r, "the hello variants (the HTTP stack alone) disagree with the yardstick")
	if s := r.String(); !strings.Contains(s, "go/nethttp/hello/pool=64 1.0") || !strings.Contains(s, "disagrees") {
		t.Errorf("summary:\n%s", s[:1200])
	}
}

// checkCannotTell checks that r judges no absolute row, for a reason that says why,
// that the gate and the text say so, and that the rest is still judged.
func checkCannotTell(t *testing.T, r *Result, why string) {
	t.Helper()
	found := false
	for _, c := range r.CannotTell {
		found = found || (c.Kind == Absolute && len(c.Units) == 0 && strings.Contains(c.Reason, why))
	}
	if !found || !r.Gate.CannotTell {
		t.Errorf("cannot tell %+v, gate %+v; want absolute figures not judged because %q", r.CannotTell, r.Gate, why)
	}
	for _, row := range r.Rows {
		if row.Kind == Absolute && (row.Verdict != CannotTellVerdict || row.Gate) {
			t.Errorf("%s %s: %s, gate %v; want cannot tell", row.Variant, row.Unit, row.Verdict, row.Gate)
		}
		shaped := row.Kind == Ratio && slices.Contains(machineShaped, row.Question) && machineChange(r.Environment) != ""
		if row.Kind != Absolute && row.Verdict == CannotTellVerdict && !shaped {
			t.Errorf("%s %s: a %s row cannot tell; only absolute figures (and across machines, ratios of %v) depend on the machine", row.Variant, row.Unit, row.Kind, machineShaped)
		}
	}
	out := r.String()
	wants := []string{"normalisation: none", "cannot tell, absolute figures: ", "dbbench ab OLD NEW"}
	if !r.Gate.Fails {
		wants = append(wants, "gate: cannot tell")
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out[:min(len(out), 2500)])
		}
	}
	// A row that is not judged is not counted as judged in another way either.
	for _, s := range r.Summary {
		if s.Kind == Absolute && (s.WithinSpread != 0 || s.Explained != 0 || s.CannotTell == 0) {
			t.Errorf("absolute summary %+v: cannot tell rows counted as within the spread or explained", s)
		}
	}
}

// A disturbed yardstick: the old run's fixed work timed 12% slower (a build ran beside
// it; seen on this machine at 74 ms against 61–67 ms), nothing else changed. Relative
// to it every figure of the new run looks about 11% worse; the hello variants (and the
// kernel's part) say the machine did not change, so absolute figures cannot be told.
func TestDisturbedYardstickIsNotGated(t *testing.T) {
	old := comparetest.Run(1)
	for _, rd := range old.Yardstick.Readings {
		for i := range rd.Trials {
			rd.Trials[i] *= 1.12
		}
	}
	r := run(t, old, comparetest.Run(2))
	if !r.Yardstick.Contradicted || r.Gate.Fails {
		t.Fatalf("contradicted %v, gate %+v, hello %+v", r.Yardstick.Contradicted, r.Gate, r.Yardstick.Hello)
	}
	checkCannotTell(t, r, "disagree with the yardstick")
	checkCannotTell(t, r, "the yardstick's kernel part (a loopback TCP echo) says")
}

// A hello variant off on its own, the machine and every other variant the same (Go's
// hello cost 23% more CPU between two runs of one commit): the yardstick's check
// failed, so absolute figures cannot be told; gorm's within-run ratios, 25% slower
// against raw, are still judged and gated, and the gate never names the hello variant.
func TestAHelloVariantOffCannotTell(t *testing.T) {
	new := comparetest.Run(2)
	hello := comparetest.Key("go", "nethttp", "hello", "none", "none", 64)
	comparetest.Slow(new, hello, 0.75)
	comparetest.Slow(new, comparetest.Gorm, 0.75)
	r := run(t, comparetest.Run(1), new)
	checkCannotTell(t, r, short(hello))
	if row := find(r, Ratio, comparetest.Gorm, units.QPS); row == nil || row.Verdict != Regressed || !row.Gate {
		t.Errorf("gorm's QPS ratio to raw %+v, want regressed and gated", row)
	}
	if !r.Gate.Fails {
		t.Errorf("gate %+v: gorm's ratios should fail it", r.Gate)
	}
	for _, v := range r.Gate.Variants {
		if v == hello {
			t.Errorf("gate names the hello variant: %v", r.Gate.Variants)
		}
	}
}

// A hello variant's own absolute figures, where the evidence can tell, are shown and
// never gated: the HTTP stack it measures shows in every variant of its server.
func TestAHelloVariantIsNotGated(t *testing.T) {
	new := comparetest.Run(2)
	hello := comparetest.Key("go", "nethttp", "hello", "none", "none", 64)
	comparetest.Slow(new, hello, 0.93)
	r := run(t, comparetest.Run(1), new)
	if r.Gate.CannotTell || r.Yardstick.Contradicted {
		t.Fatalf("hello 7%% slower: cannot tell %+v; the check should hold within the spread", r.CannotTell)
	}
	for _, row := range r.Rows {
		if row.Variant == hello && row.Gate {
			t.Errorf("hello %s gated: %+v", row.Unit, row)
		}
	}
}

// The kernel changed alone: the fixed work reads the same speed, the loopback echo 0.8
// times as fast, as a new kernel did to the HTTP stack. Absolute figures cannot be told;
// counts and ratios are judged.
func TestKernelAloneChangedCannotTell(t *testing.T) {
	new := comparetest.Run(2)
	comparetest.Kernel(new, 0.8)
	r := run(t, comparetest.Run(1), new)
	if r.Yardstick.Kernel == nil || r.Yardstick.KernelAgrees {
		t.Fatalf("kernel %+v, agrees %v", r.Yardstick.Kernel, r.Yardstick.KernelAgrees)
	}
	checkCannotTell(t, r, "the yardstick's kernel part (a loopback TCP echo) says 0.79")
	if !strings.Contains(r.String(), "kernel part (a loopback TCP echo, new/old): 0.79") {
		t.Errorf("output lacks the kernel part's speed")
	}
}

// The same code on another kernel (the environment says so) and a machine 0.8 times as
// fast: absolute figures cannot be told, whatever the yardstick says; two more commands
// per request in one variant are still found, as a count change.
func TestMachineChangeCannotTell(t *testing.T) {
	old, new := comparetest.Run(1), comparetest.Run(2)
	old.Environment["kernel"], new.Environment["kernel"] = "6.18.44-fc-v657", "6.18.44-fc-v1300"
	comparetest.Machine(new, 0.8)
	r := run(t, old, new)
	checkCannotTell(t, r, "the machine changed (kernel 6.18.44-fc-v657 → 6.18.44-fc-v1300)")
	perRequest := comparetest.Key("go", "nethttp", "raw", "interpolate", "per-request", 64)
	if row := find(r, Ratio, perRequest, units.QPS); row == nil || row.Verdict != CannotTellVerdict {
		t.Errorf("per-request over persistent across machines: %+v, want cannot tell", row)
	}
	if row := find(r, Ratio, comparetest.Gorm, units.QPS); row == nil || row.Verdict != Unchanged {
		t.Errorf("gorm over raw across machines: %+v, want judged, unchanged", row)
	}
	if r.Gate.Fails {
		t.Errorf("identical code across a machine change failed the gate: %+v", r.Gate)
	}
	comparetest.AddCommands(new, comparetest.Gorm, 2)
	r = run(t, old, new)
	if !r.Gate.Fails || r.Gate.CountChanges == 0 || !r.Gate.CannotTell {
		t.Errorf("two more commands across a machine change: gate %+v, want count changes and cannot tell", r.Gate)
	}
	// A key the old run lacks (recorded by a later dbbench) is not a change.
	delete(old.Environment, "kernel")
	if m := machineChange(environment(old, new)); m != "" {
		t.Errorf("a key only the new run records: %q, want no change", m)
	}
}

func TestEnvironmentDifferences(t *testing.T) {
	old, new := comparetest.Run(1), comparetest.Run(1)
	new.Environment["kernel"] = "6.19.1"
	new.Environment["php"] = "8.3.0"
	new.Settings.Connections = 32
	r := run(t, old, new)
	e := r.Environment
	if e.Match || len(e.Differences) != 2 || e.Differences[0] != (Difference{"kernel", "6.18.44", "6.19.1"}) ||
		e.Differences[1] != (Difference{"php", "", "8.3.0"}) || len(e.Settings) != 1 || e.Settings[0].Key != "connections" {
		t.Errorf("environment %+v", e)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "settings that shape the load differ (connections 64 → 32)") {
		t.Errorf("notes %q", r.Notes)
	}
	s := r.String()
	if !strings.Contains(s, "environment: 2 keys differ\n  kernel  6.18.44   → 6.19.1\n  php     (absent)  → 8.3.0\n") ||
		!strings.Contains(s, "settings: 1 key differs\n  connections  64  → 32\n") {
		t.Errorf("environment block:\n%s", s[:800])
	}
}

// Runs of two topologies differ as two environments do, and a note says what that
// means; a run that recorded none was on loopback.
func TestTopologiesDiffer(t *testing.T) {
	old, new := comparetest.Run(1), comparetest.Run(1)
	new.Topology = &results.Topology{Kind: "netns"}
	r := run(t, old, new)
	e := r.Environment
	if e.Match || len(e.Differences) != 1 || e.Differences[0] != (Difference{"topology", "loopback", "netns"}) {
		t.Errorf("environment %+v", e)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "the topologies differ (loopback → netns)") {
		t.Errorf("notes %q", r.Notes)
	}
	if !strings.Contains(r.String(), "  topology  loopback  → netns\n") {
		t.Errorf("environment block:\n%s", r.String()[:600])
	}
	old.Topology = &results.Topology{Kind: "loopback"}
	new.Topology = nil
	if e := run(t, old, new).Environment; !e.Match {
		t.Errorf("loopback recorded and loopback by default differ: %+v", e)
	}
	// Two runs with the app on other machines differ by those machines' blocks.
	onHost := func(url, cores string) *results.Topology {
		return &results.Topology{Kind: "ssh", Roles: []*results.Place{{Role: "load", Host: "here"},
			{Role: "app", Host: url, Environment: map[string]string{"cpu-count": cores, "kernel": "6.1.0"}}}}
	}
	old.Topology, new.Topology = onHost("ssh://a@h1:22", "2"), onHost("ssh://a@h2:22", "8")
	want := []Difference{{"app-host", "ssh://a@h1:22", "ssh://a@h2:22"}, {"app-host cpu-count", "2", "8"}}
	r = run(t, old, new)
	if e := r.Environment; !slices.Equal(e.Differences, want) {
		t.Errorf("two app hosts: %+v, want %+v", e.Differences, want)
	}
	// Another topology, or another app host, is another machine: absolute figures
	// cannot be told.
	checkCannotTell(t, r, "the machine changed (app-host ssh://a@h1:22 → ssh://a@h2:22, app-host cpu-count 2 → 8)")
	old.Topology, new.Topology = nil, &results.Topology{Kind: "netns"}
	checkCannotTell(t, run(t, old, new), "the machine changed (topology loopback → netns)")
}

// Across a machine change the ratios whose sides differ in what the machine's kind
// decides cannot be told (conn, server, db); the others are judged.
func TestMachineShapedRatios(t *testing.T) {
	r := &Result{Environment: Environment{Differences: []Difference{{"kernel", "a", "b"}}}}
	cs := ratioCannotTell(r)
	for _, q := range []string{questions.Conn, questions.Server, questions.DB} {
		if len(cs) != 1 || !cs[0].covers(Ratio, units.QPS, q) {
			t.Errorf("question %s across a kernel change: %+v, want cannot tell", q, cs)
		}
	}
	for _, q := range []string{questions.Layer, questions.Stmt, questions.Rows} {
		if len(cs) == 1 && cs[0].covers(Ratio, units.QPS, q) {
			t.Errorf("question %s across a kernel change cannot tell; it should be judged", q)
		}
	}
	if cs := ratioCannotTell(&Result{}); cs != nil {
		t.Errorf("the same machine: %+v, want every ratio judged", cs)
	}
}

// Runs whose yardsticks timed different kernel work are normalised on their fixed
// work, with a note; a comparison of hello variants only never says cannot tell, as
// nothing in it is gated.
func TestKernelWorkDiffersAndHelloOnly(t *testing.T) {
	old, new := comparetest.Run(1), comparetest.Run(2)
	new.Yardstick.KernelWork = "kernel yardstick v2"
	r := run(t, old, new)
	if !r.Yardstick.Normalised || r.Yardstick.Kernel != nil || !strings.Contains(strings.Join(r.Notes, "\n"), "the yardstick's kernel part: ") || r.Gate.CannotTell {
		t.Errorf("kernel work differs: normalised %v, kernel %+v, cannot tell %+v, notes %q", r.Yardstick.Normalised, r.Yardstick.Kernel, r.CannotTell, r.Notes)
	}
	helloOnly := func(run *results.Run) {
		run.Variants = slices.DeleteFunc(run.Variants, func(v *results.Variant) bool { return v.DB })
		run.Comparisons = nil
	}
	old, new = comparetest.Run(1), comparetest.Run(2)
	helloOnly(old)
	helloOnly(new)
	old.Environment["kernel"] = "another"
	if r := run(t, old, new); r.Gate.CannotTell || r.Gate.Fails || len(r.CannotTell) != 0 {
		t.Errorf("hello variants only, across a kernel change: gate %+v, cannot tell %+v; nothing is gated, so nothing to tell", r.Gate, r.CannotTell)
	}
}

// A yardstick of other work, or of too few trials, is not used, and the notes say why.
func TestUnusableYardstick(t *testing.T) {
	old, new := comparetest.Run(1), comparetest.Run(2)
	new.Yardstick.Work = "yardstick v2: something else"
	r := run(t, old, new)
	if r.Yardstick.Normalised || !strings.Contains(strings.Join(r.Notes, "\n"), "timed different work") {
		t.Errorf("different work: normalised %v, notes %q", r.Yardstick.Normalised, r.Notes)
	}
	old, new = comparetest.Run(1), comparetest.Run(2)
	old.Yardstick.Readings = old.Yardstick.Readings[:1]
	old.Yardstick.Readings[0].Trials = old.Yardstick.Readings[0].Trials[:2]
	new.Yardstick.Readings = new.Yardstick.Readings[:1]
	new.Yardstick.Readings[0].Trials = new.Yardstick.Readings[0].Trials[:2]
	r = run(t, old, new)
	if r.Yardstick.Normalised || !strings.Contains(strings.Join(r.Notes, "\n"), "too few for an interval") {
		t.Errorf("two trials: normalised %v, notes %q", r.Yardstick.Normalised, r.Notes)
	}
}

// Variants missing or invalid on one side are listed, not compared.
func TestVariantsOnOneSide(t *testing.T) {
	old, new := comparetest.Run(1), comparetest.Run(2)
	new.Variants = new.Variants[1:]
	new.Variants[0].Valid, new.Variants[0].InvalidReason = false, "verification: /users/abc answered 500, want 400"
	r := run(t, old, new)
	if strings.Contains(strings.Join(r.Notes, "\n"), "nothing to compare") {
		t.Errorf("notes %q", r.Notes)
	}
	if r := run(t, old, &results.Run{Status: "failed"}); !strings.Contains(strings.Join(r.Notes, "\n"), "nothing to compare") || len(r.Rows) > 0 {
		t.Errorf("against an empty run: notes %q, %d rows", r.Notes, len(r.Rows))
	}
	if len(r.OnlyOld) != 1 || !strings.Contains(r.OnlyOld[0], "layer=hello") || len(r.Invalid) != 1 ||
		!strings.Contains(r.Invalid[0], "answered 500, want 400 (new run)") || find(r, Absolute, new.Variants[0].Key, units.QPS) != nil {
		t.Errorf("only old %q, invalid %q", r.OnlyOld, r.Invalid)
	}
}

func TestBadNoise(t *testing.T) {
	for _, n := range []float64{-0.1, 1, math.NaN()} {
		if _, err := Compare(comparetest.Run(1), comparetest.Run(1), Options{Margin: n}); err == nil {
			t.Errorf("noise %v accepted", n)
		}
	}
}

func slicesContain(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// scatter gives every variant of r a run effect of its own, as two runs of the same
// code on this kind of machine show: factors spread from 0.88 to 1.12 (sd about 8%).
func scatter(r *results.Run) { scatterBy(r, 0.12) }

// scatterBy gives every variant of r a run effect of up to ±amp on the log scale.
func scatterBy(r *results.Run, amp float64) {
	for i, v := range r.Variants {
		comparetest.Slow(r, v.Key, math.Exp(amp*math.Sin(float64(3*i+1))))
	}
}

// A within-run ratio is free of the machine's speed but not of the run: the
// worker-over-php-fpm CPU ratio was 0.249 over 20 pairs of one run and 0.269 over 6 of
// another of the same commit. Every variant off by a run effect of its own (normal, sd
// 3%) moves the ratios beyond their own runs' intervals; within the spread of the
// comparisons none is gated, over 20 pairs of synthetic runs. Without the spread, the
// rows labelled within it that regressed would have failed the gate.
func TestRatioRunEffectsAreWithinTheSpread(t *testing.T) {
	within := 0
	for seed := uint64(2); seed < 22; seed++ {
		new := comparetest.Run(seed)
		rng := rand.New(rand.NewPCG(seed, 99))
		for _, v := range new.Variants {
			comparetest.Slow(new, v.Key, math.Exp(0.03*rng.NormFloat64()))
		}
		r := run(t, comparetest.Run(1), new)
		for _, row := range r.Rows {
			if row.Kind != Ratio {
				continue
			}
			if row.Gate {
				t.Errorf("seed %d: %s vs %s %s: %s %+v; run effects alone should not fail the gate", seed, row.Variant, row.Versus, row.Unit, row.Verdict, row.Judged)
			}
			if slicesContain(row.Labels, WithinSpread) {
				within++
			}
		}
		if out := r.String(); len(r.RatioSpread) != 2 || !strings.Contains(out, "the scatter of the comparisons' changes") {
			t.Errorf("seed %d: ratio spread %v; output:\n%s", seed, r.RatioSpread, out[:min(len(out), 1500)])
		}
	}
	if within == 0 {
		t.Errorf("no ratio labelled %q: the run effects are too small to test anything", WithinSpread)
	}
}

// The same code, each variant off by its own run effect: no absolute figure regressed,
// the ones beyond the noise on their runs' intervals alone are labelled, and the output
// gives the spread.
func TestRunEffectsAreWithinTheSpread(t *testing.T) {
	new := comparetest.Run(2)
	scatter(new)
	r := run(t, comparetest.Run(1), new)
	var within int
	for _, row := range r.Rows {
		if row.Kind != Absolute {
			continue
		}
		if row.Verdict != Unchanged {
			t.Errorf("%s %s: %s %+v; run effects alone should not be a verdict", row.Variant, row.Unit, row.Verdict, row.Judged)
		}
		if slicesContain(row.Labels, WithinSpread) {
			within++
		}
	}
	if within == 0 {
		t.Errorf("no row labelled %q: the test's run effects are too small to test anything", WithinSpread)
	}
	// The hello variants move by their run effects too (Go's by +11%): within the spread
	// they agree with the yardstick.
	for _, h := range r.Yardstick.Hello {
		if !h.Agrees {
			t.Errorf("hello %s %+v disagrees; within the between-run spread it should agree", h.Variant, h.Ratio)
		}
	}
	if r.Yardstick.Contradicted {
		t.Errorf("run effects alone contradicted the yardstick")
	}

	if s := r.Spread[units.QPS]; s < 0.08 || s > 0.3 {
		t.Errorf("QPS spread ±%.1f%%, want the run effects' ±8–30%%", 100*s)
	}
	if out := r.String(); !strings.Contains(out, "between-run spread") || !strings.Contains(out, WithinSpread) {
		t.Errorf("output lacks the spread:\n%s", out)
	}
}

// Run effects and one variant 40% slower on top: that variant regressed, beyond the
// spread the others show, and it does not widen the spread much (τ is robust).
func TestRegressionStandsOutOfTheSpread(t *testing.T) {
	new := comparetest.Run(2)
	scatter(new)
	comparetest.Slow(new, comparetest.Gorm, 0.6)
	r := run(t, comparetest.Run(1), new)
	for _, row := range r.Rows {
		if row.Kind == Absolute && row.Verdict != Unchanged && row.Variant != comparetest.Gorm {
			t.Errorf("%s %s: %s; only gorm should change", row.Variant, row.Unit, row.Verdict)
		}
	}
	if row := find(r, Absolute, comparetest.Gorm, units.QPS); row.Verdict != Regressed || !row.Gate {
		t.Errorf("gorm QPS %+v, want regressed and gated", row)
	}
	if row := find(r, Ratio, comparetest.Gorm, units.QPS); row == nil || row.Verdict != Regressed || !row.Gate {
		t.Errorf("gorm's QPS ratio to raw %+v, want regressed and gated beyond the comparisons' spread", row)
	}
}

// A comparison of fewer variants than the spread needs: those units cannot be told, and
// the gate says why.
func TestTooFewVariantsForTheSpread(t *testing.T) {
	old, new := comparetest.Run(1), comparetest.Run(2)
	old.Variants, new.Variants = old.Variants[:3], new.Variants[:3]
	r := run(t, old, new)
	if len(r.Spread) != 0 || !r.cannotTell(Absolute, units.QPS, "") || !r.cannotTell(Ratio, units.QPS, questions.Layer) || !r.Gate.CannotTell {
		t.Errorf("spread %v, cannot tell %+v", r.Spread, r.CannotTell)
	}
	for _, c := range r.CannotTell {
		if len(c.Units) == 0 || !strings.Contains(c.Reason, "too few to estimate how far one moves from one run to the next") {
			t.Errorf("cannot tell %+v: want the units with too few variants, and why", c)
		}
	}
	for _, row := range r.Rows {
		if row.Kind != Count && (row.Verdict != CannotTellVerdict || row.Gate) {
			t.Errorf("%s %s: %s, gate %v; want cannot tell", row.Variant, row.Unit, row.Verdict, row.Gate)
		}
	}
}

// A neighbour that took CPU while the new run's slices ran (and not while its
// yardstick was read): absolute figures cannot be told. The same neighbour in both
// runs is no difference.
func TestNeighbourDuringTheSlices(t *testing.T) {
	busy := func(r *results.Run, cores float64) {
		for _, v := range r.Variants {
			for _, rep := range v.Reps {
				c := cores
				rep.OutsideCPU = &c
			}
		}
	}
	old, new := comparetest.Run(1), comparetest.Run(2)
	busy(old, 0.02)
	busy(new, 0.61)
	r := run(t, old, new)
	if o := r.Yardstick.Outside; o == nil || !o.Differs || float64(o.Old) != 0.02 || float64(o.New) != 0.61 {
		t.Fatalf("outside %+v, want 0.02 against 0.61 cores, differing", r.Yardstick.Outside)
	}
	checkCannotTell(t, r, "kept 0.61 cores busy during the new run's slices and 0.02 during the old run's")
	if !strings.Contains(r.String(), "other processes (not the target, the database or dbbench) during the slices: old 0.02 cores, new 0.61 (medians): they differ") {
		t.Errorf("output lacks the outside CPU line")
	}
	busy(old, 0.55)
	if r := run(t, old, new); r.Yardstick.Outside == nil || r.Yardstick.Outside.Differs || r.cannotTell(Absolute, units.QPS, "") {
		t.Errorf("the same neighbour in both runs: outside %+v, cannot tell %+v", r.Yardstick.Outside, r.CannotTell)
	}
}
