package profile

import (
	"fmt"
	"io"
	"strings"

	"github.com/google/pprof/profile"
)

// Sample types of Go's profiles, as net/http/pprof writes them: a CPU profile holds
// "samples" (count) and "cpu" (nanoseconds); a heap or allocs profile holds
// "alloc_objects", "alloc_space", "inuse_objects" and "inuse_space".
const (
	CPU          = "cpu"
	AllocSpace   = "alloc_space"
	AllocObjects = "alloc_objects"
	InuseSpace   = "inuse_space"
	InuseObjects = "inuse_objects"
)

// ReadPprof reads a pprof protobuf profile (gzipped or not) and returns its stacks
// weighted by the sample type named sampleType (CPU, AllocSpace, …), in that type's unit.
// Inlined calls are frames of their own, as pprof shows them; a location without
// symbols is named by its address.
func ReadPprof(r io.Reader, sampleType string) (*Profile, error) {
	p, err := profile.Parse(r)
	if err != nil {
		return nil, fmt.Errorf("reading pprof profile: %w", err)
	}
	idx := -1
	var names []string
	for i, st := range p.SampleType {
		names = append(names, st.Type)
		if st.Type == sampleType {
			idx = i
		}
	}
	if idx < 0 {
		return nil, fmt.Errorf("pprof profile has no sample type %q (it has: %s)",
			sampleType, strings.Join(names, ", "))
	}
	out := &Profile{Unit: p.SampleType[idx].Unit, Stacks: make([]Stack, 0, len(p.Sample))}
	for _, s := range p.Sample {
		if s.Value[idx] == 0 {
			continue
		}
		out.Stacks = append(out.Stacks, Stack{Frames: pprofFrames(s), Weight: s.Value[idx]})
	}
	out.Merge()
	return out, nil
}

// pprofFrames turns a sample's locations (leaf first; within one location the
// inlined callee first) into frame names root first.
func pprofFrames(s *profile.Sample) []string {
	var frames []string
	for i := len(s.Location) - 1; i >= 0; i-- {
		loc := s.Location[i]
		if len(loc.Line) == 0 {
			frames = append(frames, fmt.Sprintf("0x%x", loc.Address))
			continue
		}
		for j := len(loc.Line) - 1; j >= 0; j-- {
			name := fmt.Sprintf("0x%x", loc.Address)
			if fn := loc.Line[j].Function; fn != nil && fn.Name != "" {
				name = fn.Name
			}
			frames = append(frames, name)
		}
	}
	if len(frames) == 0 {
		frames = []string{NoFrame}
	}
	return frames
}

// WritePprof writes p as a gzipped pprof protobuf with one sample type, sampleType in
// p's unit ("cpu" in "nanoseconds" for a PHP CPU profile, "wall" for wall time), so that
// the viewers of Go's profiles open it: go tool pprof -top name.pb.gz, pprof -http,
// speedscope. Each frame name becomes a function and a location of its own.
func WritePprof(w io.Writer, p *Profile, sampleType string) error {
	out := &profile.Profile{SampleType: []*profile.ValueType{{Type: sampleType, Unit: p.Unit}}}
	locs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := locs[name]; ok {
			return l
		}
		id := uint64(len(locs) + 1)
		fn := &profile.Function{ID: id, Name: name, SystemName: name}
		l := &profile.Location{ID: id, Line: []profile.Line{{Function: fn}}}
		out.Function, out.Location = append(out.Function, fn), append(out.Location, l)
		locs[name] = l
		return l
	}
	for _, s := range p.Stacks {
		sample := &profile.Sample{Value: []int64{s.Weight}}
		for i := len(s.Frames) - 1; i >= 0; i-- { // pprof lists the leaf first
			sample.Location = append(sample.Location, loc(s.Frames[i]))
		}
		out.Sample = append(out.Sample, sample)
	}
	if err := out.CheckValid(); err != nil {
		return fmt.Errorf("writing pprof profile: %w", err)
	}
	return out.Write(w)
}
