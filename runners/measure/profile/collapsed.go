package profile

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// maxLine bounds one collapsed line: deep PHP stacks with long closure names reach tens
// of kilobytes, and a line longer than this is not a profile.
const maxLine = 16 << 20

// ReadCollapsed reads collapsed stacks (Brendan Gregg's format, as Excimer's
// ExcimerLog::formatCollapsed and flamegraph.pl's stackcollapse scripts write it): one
// sample per line, frames root first separated by ";", a space, then a non-negative
// integer count. Empty frames are dropped (Excimer starts its lines with ";"), blank
// lines are skipped. The weights are in unit, which the format does not carry.
func ReadCollapsed(r io.Reader, unit string) (*Profile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	p := &Profile{Unit: unit}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		st, err := parseCollapsed(line)
		if err != nil {
			return nil, fmt.Errorf("collapsed stacks line %d: %w", n, err)
		}
		p.Stacks = append(p.Stacks, st)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading collapsed stacks: %w", err)
	}
	p.Merge()
	return p, nil
}

func parseCollapsed(line string) (Stack, error) {
	cut := strings.LastIndexAny(line, " \t")
	if cut < 0 {
		return Stack{}, fmt.Errorf(`want "frame;frame;… count", got %q`, clip(line))
	}
	count := line[cut+1:]
	w, err := strconv.ParseInt(count, 10, 64)
	if err != nil || w < 0 {
		return Stack{}, fmt.Errorf("count %q is not a non-negative integer", clip(count))
	}
	var frames []string
	for _, f := range strings.Split(strings.TrimRight(line[:cut], " \t"), ";") {
		if f != "" {
			frames = append(frames, f)
		}
	}
	if len(frames) == 0 {
		frames = []string{NoFrame}
	}
	return Stack{Frames: frames, Weight: w}, nil
}

// clip keeps error messages short when a whole stack is quoted.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

// WriteCollapsed writes p as collapsed stacks, merged and sorted, one line per
// distinct stack. A ";" inside a frame name (Go generic shapes of structs have them)
// becomes "," and a line break a space, the only changes the format forces.
func WriteCollapsed(w io.Writer, p *Profile) error {
	m := Profile{Unit: p.Unit, Stacks: p.Stacks}
	m.Merge()
	bw := bufio.NewWriter(w)
	for _, s := range m.Stacks {
		frames := s.Frames
		if len(frames) == 0 {
			frames = []string{NoFrame}
		}
		for i, f := range frames {
			if i > 0 {
				bw.WriteByte(';')
			}
			bw.WriteString(collapsedFrame.Replace(f))
		}
		bw.WriteByte(' ')
		bw.WriteString(strconv.FormatInt(s.Weight, 10))
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing collapsed stacks: %w", err)
	}
	return nil
}

var collapsedFrame = strings.NewReplacer(";", ",", "\n", " ", "\r", " ")
