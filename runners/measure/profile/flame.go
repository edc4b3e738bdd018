package profile

import (
	"bufio"
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"dbbench/runners/units"
)

// FlameOptions shape a flame graph.
type FlameOptions struct {
	Title string
	Lang  Lang // selects the table that colours frames by component
	Width int  // pixels; 0 means 1200
	// MinWidth leaves out frames narrower than this many pixels, with their callees
	// (their weight stays in their caller's frame). 0 means 0.1, as flamegraph.pl;
	// a negative value draws every frame.
	MinWidth float64
	// Inline leaves out the XML declaration, for an <svg> placed inside an HTML page.
	// The drawing has no id attributes, so several can share a page.
	Inline bool
}

// Geometry of the drawing. The text is monospace so that its width can be estimated
// from the number of characters: common monospace fonts advance 0.6 em per character;
// 0.62 leaves a margin for the one the browser picks.
const (
	frameHeight = 16
	fontSize    = 11
	charWidth   = 0.62 * fontSize
	textPad     = 3 // pixels between a frame's edge and its text, each side
	margin      = 10
	titleHeight = 24
	legendRow   = 18
	swatch      = 12
)

// flameNode is one frame of the merged call tree: every stack with the same frames
// from the root down to here passes through it.
type flameNode struct {
	name     string
	weight   int64
	children map[string]*flameNode
}

func (n *flameNode) child(name string) *flameNode {
	if n.children == nil {
		n.children = map[string]*flameNode{}
	}
	c, ok := n.children[name]
	if !ok {
		c = &flameNode{name: name}
		n.children[name] = c
	}
	return c
}

// sortedChildren orders callees alphabetically, as the classic flame graph does, so
// that a render depends only on the profile's content.
func (n *flameNode) sortedChildren() []*flameNode {
	names := make([]string, 0, len(n.children))
	for k := range n.children {
		names = append(names, k)
	}
	slices.Sort(names)
	out := make([]*flameNode, len(names))
	for i, k := range names {
		out[i] = n.children[k]
	}
	return out
}

func buildTree(p *Profile) (*flameNode, int) {
	root := &flameNode{name: "all"}
	depth := 0
	for _, s := range p.Stacks {
		if s.Weight <= 0 {
			continue
		}
		root.weight += s.Weight
		n := root
		for _, f := range s.Frames {
			n = n.child(f)
			n.weight += s.Weight
		}
		depth = max(depth, len(s.Frames))
	}
	return root, depth
}

// WriteFlameGraph draws p as one self-contained SVG: no script, no stylesheet, no font
// or anything else fetched, so it can be opened from disk or inlined in a page under a
// strict Content-Security-Policy. Each frame is a rectangle whose width is its share
// of the total, coloured by the component its own time is attributed to, with a
// <title> (the tooltip) giving the frame, the component, the weight and its share.
func WriteFlameGraph(w io.Writer, p *Profile, opt FlameOptions) error {
	cl, err := NewClassifier(opt.Lang)
	if err != nil {
		return fmt.Errorf("flame graph: %w", err)
	}
	folded, err := Fold(p, opt.Lang)
	if err != nil {
		return fmt.Errorf("flame graph: %w", err)
	}
	fg := newFlame(p, opt, cl)
	bw := bufio.NewWriter(w)
	fg.write(bw, folded)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing flame graph: %w", err)
	}
	return nil
}

type flame struct {
	opt      FlameOptions
	unit     string
	cl       *Classifier
	root     *flameNode
	depth    int
	width    float64 // of the drawing area, pixels
	minWidth float64
	height   int
	top      int // y of the drawing area's top
	legend   []legendItem
}

type legendItem struct {
	comp Component
	x, y float64
	text string
}

func newFlame(p *Profile, opt FlameOptions, cl *Classifier) *flame {
	if opt.Width <= 0 {
		opt.Width = 1200
	}
	f := &flame{opt: opt, unit: p.Unit, cl: cl, width: float64(opt.Width - 2*margin)}
	f.minWidth = opt.MinWidth
	if f.minWidth == 0 {
		f.minWidth = 0.1
	}
	f.root, f.depth = buildTree(p)
	return f
}

func (f *flame) layoutLegend(folded *Folded) {
	comps, _ := Components(f.opt.Lang)
	x, y := float64(margin), float64(margin+titleHeight)
	for _, c := range comps {
		text := fmt.Sprintf("%s %.1f%%", c.Label(), 100*folded.Share(c))
		wd := swatch + 4 + float64(utf8.RuneCountInString(text))*charWidth + 14
		if x > margin && x+wd > float64(f.opt.Width-margin) {
			x, y = margin, y+legendRow
		}
		f.legend = append(f.legend, legendItem{comp: c, x: x, y: y, text: text})
		x += wd
	}
	f.top = int(y) + legendRow + 6
	f.height = f.top + (f.depth+1)*frameHeight + margin
}

func (f *flame) write(w *bufio.Writer, folded *Folded) {
	f.layoutLegend(folded)
	if !f.opt.Inline {
		fmt.Fprintf(w, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	}
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="%d">`+"\n",
		f.opt.Width, f.height, f.opt.Width, f.height, fontSize)
	fmt.Fprintf(w, `<rect class="background" x="0" y="0" width="%d" height="%d" fill="#ffffff"/>`+"\n", f.opt.Width, f.height)
	fmt.Fprintf(w, `<text x="%d" y="%d" font-size="14">`, margin, margin+14)
	title := f.opt.Title
	if title != "" {
		title += ": "
	}
	escape(w, title+"total "+formatWeight(f.root.weight, f.unit))
	w.WriteString("</text>\n<g class=\"legend\">\n")
	for _, it := range f.legend {
		fmt.Fprintf(w, `<rect x="%.2f" y="%.2f" width="%d" height="%d" fill="%s" stroke="#888888" stroke-width="0.5"/>`,
			it.x, it.y, swatch, swatch, it.comp.Color())
		fmt.Fprintf(w, `<text x="%.2f" y="%.2f">`, it.x+swatch+4, it.y+swatch-2)
		escape(w, it.text)
		w.WriteString("</text>\n")
	}
	w.WriteString("</g>\n<g class=\"frames\">\n")
	if f.root.weight > 0 {
		f.frame(w, f.root, nil, 0, margin)
	} else {
		fmt.Fprintf(w, `<text x="%d" y="%d">no samples</text>`+"\n", margin, f.top+frameHeight)
	}
	w.WriteString("</g>\n</svg>\n")
}

// frame draws n (at depth d, left edge x) and its callees.
func (f *flame) frame(w *bufio.Writer, n *flameNode, path []string, d int, x float64) {
	wd := float64(n.weight) / float64(f.root.weight) * f.width
	if wd < f.minWidth {
		return
	}
	y := f.top + (f.depth-d)*frameHeight
	fill, label := "#eeeeee", ""
	if d > 0 {
		c := f.cl.Attribute(path)
		fill, label = c.Color(), c.Label()+"\n"
	}
	w.WriteString(`<g class="f"><title>`)
	escape(w, fmt.Sprintf("%s\n%s%s (%.2f%%)", n.name, label, formatWeight(n.weight, f.unit),
		100*float64(n.weight)/float64(f.root.weight)))
	fmt.Fprintf(w, `</title><rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" stroke="#ffffff" stroke-width="0.5"/>`,
		x, y, wd, frameHeight-1, fill)
	if t := fitText(n.name, wd); t != "" {
		fmt.Fprintf(w, `<text x="%.2f" y="%d">`, x+textPad, y+frameHeight-5)
		escape(w, t)
		w.WriteString("</text>")
	}
	w.WriteString("</g>\n")
	cx := x
	for _, c := range n.sortedChildren() {
		f.frame(w, c, append(path, c.name), d+1, cx)
		cx += float64(c.weight) / float64(f.root.weight) * f.width
	}
}

// fitText returns s cut to fit a frame width pixels wide by the monospace estimate,
// ending in "…" when cut, or "" when not even three characters fit.
func fitText(s string, width float64) string {
	n := int((width - 2*textPad) / charWidth)
	if n < 3 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// escape writes s as XML character data (also safe inside attribute quotes).
func escape(w io.Writer, s string) {
	xml.EscapeText(w, []byte(s)) // writes to a bufio.Writer, whose error Flush reports
}

// formatWeight prints a weight for people: time and bytes scaled, counts as they are.
func formatWeight(w int64, unit string) string {
	switch unit {
	case "nanoseconds":
		return units.Nanos(w)
	case "bytes":
		return units.BinaryBytes(w)
	}
	return strings.TrimSpace(fmt.Sprintf("%d %s", w, unit))
}
