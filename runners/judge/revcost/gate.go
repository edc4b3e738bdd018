package revcost

import "fmt"

// Regressions are what fails dbbench ab --fail-on regression, one line each: a variant
// B broke (valid at A, invalid at B), more MySQL commands per request, and a figure
// that gates (Metric.Gates: CPU per request, req/s) worse than the threshold with its
// whole interval past it. Nothing else does: a verdict of worse whose interval still
// reaches inside the threshold may be chance among the many figures of a run, or a
// change too small to matter.
func (a *Answer) Regressions() []string {
	out := append([]string(nil), a.Broken...)
	for _, v := range a.Variants {
		if v.Commands.Grew() {
			out = append(out, Label(v.B)+": "+v.Commands.String())
		}
		for _, e := range v.Figures {
			if e.Gates && e.Worse && e.Beyond {
				out = append(out, fmt.Sprintf("%s: %s %s, past the ±%g%% threshold", Label(v.B), e.Name, Change(e.Estimate), 100*a.AB.Margin))
			}
		}
	}
	return out
}
