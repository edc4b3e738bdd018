package profile

import (
	"bytes"
	"encoding/xml"
	"math"
	"strings"
	"testing"
	"unicode/utf8"
)

type svgDoc struct {
	Width  float64    `xml:"width,attr"`
	Groups []svgGroup `xml:"g"`
	Texts  []svgText  `xml:"text"`
}

type svgGroup struct {
	Class  string     `xml:"class,attr"`
	Frames []svgFrame `xml:"g"`
	Rects  []svgRect  `xml:"rect"`
	Texts  []svgText  `xml:"text"`
}

type svgFrame struct {
	Class string    `xml:"class,attr"`
	Title string    `xml:"title"`
	Rect  svgRect   `xml:"rect"`
	Text  []svgText `xml:"text"`
}

type svgRect struct {
	X     float64 `xml:"x,attr"`
	Y     float64 `xml:"y,attr"`
	Width float64 `xml:"width,attr"`
	Fill  string  `xml:"fill,attr"`
}

type svgText struct {
	X    float64 `xml:"x,attr"`
	Body string  `xml:",chardata"`
}

func render(t *testing.T, p *Profile, opt FlameOptions) (string, svgDoc) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteFlameGraph(&buf, p, opt); err != nil {
		t.Fatal(err)
	}
	var doc svgDoc
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("not well-formed XML: %v\n%s", err, buf.String())
	}
	return buf.String(), doc
}

func frames(doc svgDoc) []svgFrame {
	for _, g := range doc.Groups {
		if g.Class == "frames" {
			return g.Frames
		}
	}
	return nil
}

// flameInput: 6 merged frames below the root (main.main twice, a and b under it, the
// ORM frame, and a long-named one), plus the root.
func flameInput() *Profile {
	return stacks("nanoseconds",
		"main.main;dbbench/go/server.b 300000",
		"main.main;dbbench/go/server.a 500000",
		"main.main;dbbench/go/server.a;github.com/beego/beego/v2/client/orm.(*ormBase).Read 150000",
		"main.main;dbbench/go/server.a 50000",
		"runtime.goexit;runtime.gcBgMarkWorker;runtime.gcDrainMarkWorkerDedicated_with_a_name_far_too_long_for_its_frame 100000",
	)
}

func TestFlameGraphHasOneRectPerMergedFrame(t *testing.T) {
	out, doc := render(t, flameInput(), FlameOptions{Title: "cpu <go>", Lang: Go, Width: 1000})
	fs := frames(doc)
	want := map[string]int64{
		"all": 1100000, "main.main": 1000000, "dbbench/go/server.a": 700000, "dbbench/go/server.b": 300000,
		"github.com/beego/beego/v2/client/orm.(*ormBase).Read": 150000,
		"runtime.goexit": 100000, "runtime.gcBgMarkWorker": 100000,
		"runtime.gcDrainMarkWorkerDedicated_with_a_name_far_too_long_for_its_frame": 100000,
	}
	if len(fs) != len(want) {
		t.Fatalf("%d frames, want %d", len(fs), len(want))
	}
	area := 1000.0 - 2*margin
	for _, f := range fs {
		name, _, _ := strings.Cut(f.Title, "\n")
		w, ok := want[name]
		if !ok {
			t.Errorf("unexpected frame %q", name)
			continue
		}
		delete(want, name)
		// Widths are printed with two decimals.
		if exp := float64(w) / 1100000 * area; math.Abs(f.Rect.Width-exp) > 0.006 {
			t.Errorf("%s: width %.2f, want %.2f (its share of %g px)", name, f.Rect.Width, exp, area)
		}
		if !strings.Contains(f.Title, "%)") {
			t.Errorf("%s: title %q has no percentage", name, f.Title)
		}
	}
	for _, tc := range []struct{ name, title string }{
		{"dbbench/go/server.a", "dbbench/go/server.a\ndbbench code\n700.00 µs (63.64%)"},
		{"github.com/beego/beego/v2/client/orm.(*ormBase).Read", "ORM mapping & hydration\n150.00 µs (13.64%)"},
		{"all", "all\n1.10 ms (100.00%)"},
	} {
		if !strings.Contains(out, xmlEscaped(tc.title)) {
			t.Errorf("no title %q in the SVG", tc.title)
		}
	}
	if !strings.Contains(doc.Texts[0].Body, "cpu <go>: total 1.10 ms") {
		t.Errorf("heading %q", doc.Texts[0].Body)
	}
}

func xmlEscaped(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

func TestFlameGraphLayout(t *testing.T) {
	_, doc := render(t, flameInput(), FlameOptions{Lang: Go, Width: 1000})
	byName := map[string]svgFrame{}
	for _, f := range frames(doc) {
		name, _, _ := strings.Cut(f.Title, "\n")
		byName[name] = f
	}
	a, b, m := byName["dbbench/go/server.a"], byName["dbbench/go/server.b"], byName["main.main"]
	// Children in alphabetical order from their parent's left edge, one row above it.
	if a.Rect.X != m.Rect.X || math.Abs(b.Rect.X-(a.Rect.X+a.Rect.Width)) > 0.01 {
		t.Errorf("a at %.2f, b at %.2f, parent at %.2f: want a first, b right after", a.Rect.X, b.Rect.X, m.Rect.X)
	}
	if a.Rect.Y != m.Rect.Y-frameHeight || byName["all"].Rect.Y != m.Rect.Y+frameHeight {
		t.Errorf("rows: all %v, main %v, a %v: want the root at the bottom", byName["all"].Rect.Y, m.Rect.Y, a.Rect.Y)
	}
	// Colour by component: the same component, the same colour.
	if a.Rect.Fill != DbBench.Color() || byName["github.com/beego/beego/v2/client/orm.(*ormBase).Read"].Rect.Fill != ORM.Color() {
		t.Errorf("fills: a %s, orm %s", a.Rect.Fill, byName["github.com/beego/beego/v2/client/orm.(*ormBase).Read"].Rect.Fill)
	}
	if got := byName["runtime.gcBgMarkWorker"].Rect.Fill; got != Runtime.Color() {
		t.Errorf("GC worker fill %s, want runtime's %s", got, Runtime.Color())
	}
}

func TestFlameGraphTextFitsItsFrame(t *testing.T) {
	p := flameInput()
	p.Stacks = append(p.Stacks, Stack{Frames: []string{"main.main", "tiny"}, Weight: 3000}) // about 1 px
	_, doc := render(t, p, FlameOptions{Lang: Go, Width: 400})
	truncated, hidden := 0, 0
	for _, f := range frames(doc) {
		name, _, _ := strings.Cut(f.Title, "\n")
		if len(f.Text) == 0 {
			hidden++
			if f.Rect.Width >= 2*textPad+3*charWidth {
				t.Errorf("%s: no text in a frame %.2f px wide", name, f.Rect.Width)
			}
			continue
		}
		text := f.Text[0].Body
		if w := float64(utf8.RuneCountInString(text))*charWidth + 2*textPad; w > f.Rect.Width {
			t.Errorf("%s: text %q is %.1f px by the estimate, its frame %.2f", name, text, w, f.Rect.Width)
		}
		if text != name {
			truncated++
			if !strings.HasSuffix(text, "…") || !strings.HasPrefix(name, strings.TrimSuffix(text, "…")) {
				t.Errorf("%s: truncated to %q, want a prefix and an ellipsis", name, text)
			}
		}
	}
	if truncated == 0 || hidden == 0 {
		t.Errorf("%d truncated and %d hidden labels: the input should have some of both at 400 px", truncated, hidden)
	}
}

func TestFlameGraphIsDeterministicAndMergesStacks(t *testing.T) {
	p := flameInput()
	first, _ := render(t, p, FlameOptions{Lang: Go})
	shuffled := &Profile{Unit: p.Unit}
	for i := len(p.Stacks) - 1; i >= 0; i-- {
		s := p.Stacks[i]
		// The same stack, split in two samples.
		shuffled.Stacks = append(shuffled.Stacks, Stack{s.Frames, s.Weight / 2}, Stack{s.Frames, s.Weight - s.Weight/2})
	}
	second, _ := render(t, shuffled, FlameOptions{Lang: Go})
	if first != second {
		t.Error("the same profile in another order rendered differently")
	}
}

func TestFlameGraphLeavesOutNarrowFrames(t *testing.T) {
	p := stacks("bytes", "a;b 1000000", "a;c 1", "a;c;d 1")
	_, all := render(t, p, FlameOptions{Lang: Go, MinWidth: -1})
	_, pruned := render(t, p, FlameOptions{Lang: Go})
	if len(frames(all)) != 5 || len(frames(pruned)) != 3 {
		t.Errorf("%d frames with MinWidth -1 (want 5), %d by default (want 3: c and d are < 0.1 px)",
			len(frames(all)), len(frames(pruned)))
	}
}

func TestFlameGraphEscapesNamesAndHandlesEmptyProfiles(t *testing.T) {
	p := stacks("samples", ";/srv/php/public/index.php;<script>alert(\"&\")</script>\x01 5")
	out, doc := render(t, p, FlameOptions{Lang: PHP, Title: "php & <orm>"})
	if strings.Contains(out, "<script>") || len(frames(doc)) != 3 {
		t.Errorf("frame names not escaped, or %d frames (want 3):\n%s", len(frames(doc)), out)
	}
	out, doc = render(t, &Profile{Unit: "samples"}, FlameOptions{Lang: PHP})
	if len(frames(doc)) != 0 || !strings.Contains(out, "no samples") {
		t.Errorf("empty profile:\n%s", out)
	}
	if err := WriteFlameGraph(&bytes.Buffer{}, p, FlameOptions{}); err == nil {
		t.Error("no language: want an error")
	}
}

func TestFlameGraphLegendListsTheLanguagesComponents(t *testing.T) {
	_, doc := render(t, flameInput(), FlameOptions{Lang: Go})
	var legend svgGroup
	for _, g := range doc.Groups {
		if g.Class == "legend" {
			legend = g
		}
	}
	comps, _ := Components(Go)
	if len(legend.Rects) != len(comps) || len(legend.Texts) != len(comps) {
		t.Fatalf("legend: %d swatches, %d labels, want %d", len(legend.Rects), len(legend.Texts), len(comps))
	}
	for i, c := range comps {
		if legend.Rects[i].Fill != c.Color() || !strings.HasPrefix(legend.Texts[i].Body, c.Label()+" ") {
			t.Errorf("legend %d: %s %q, want %s %q", i, legend.Rects[i].Fill, legend.Texts[i].Body, c.Color(), c.Label())
		}
	}
	if !strings.Contains(legend.Texts[0].Body, "0.0%") || !strings.Contains(strings.Join(textBodies(legend.Texts), "|"), "dbbench code 77.3%") {
		t.Errorf("legend shares: %q", textBodies(legend.Texts))
	}
}

func textBodies(ts []svgText) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Body)
	}
	return out
}

func TestFlameGraphInlineHasNoXMLDeclaration(t *testing.T) {
	standalone, _ := render(t, flameInput(), FlameOptions{Lang: Go})
	inline, _ := render(t, flameInput(), FlameOptions{Lang: Go, Inline: true})
	if !strings.HasPrefix(standalone, "<?xml ") || !strings.HasPrefix(inline, "<svg ") {
		t.Errorf("standalone starts %q, inline %q", standalone[:10], inline[:10])
	}
	if strings.Contains(inline, " id=") {
		t.Error("ids in an inline SVG would clash with a second one on the page")
	}
}
