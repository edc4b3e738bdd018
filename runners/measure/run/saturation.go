package run

import (
	"dbbench/runners/histogram"
	"dbbench/runners/measure/loadgen"
	"dbbench/runners/saturation"
)

// saturationSummary is what saturation.Judge reads of a slices load; the runner adds
// the causes it measured outside the generator.
func saturationSummary(r *loadgen.Result) saturation.Summary {
	s := saturation.Summary{
		Mode:          r.Mode,
		Connections:   r.Connections,
		Offered:       r.Rate,
		Window:        r.Window.Seconds(),
		Elapsed:       r.Elapsed.Seconds(),
		Scheduled:     r.Scheduled,
		Unsent:        r.Unsent,
		LateTarget:    r.LateTarget,
		LateGenerator: r.LateGenerator,
		Completed:     r.Requests,
		LateAfter:     loadgen.LateAfter.Seconds(),
		GeneratorBusy: r.GeneratorBusy(),
		Tail:          bucket(r.Tail),
	}
	if r.Latency != nil && r.Latency.TotalCount() > 0 {
		s.P99 = histogram.Summarize(r.Latency).P99.Seconds()
	}
	for _, b := range r.Timeline {
		s.Timeline = append(s.Timeline, bucket(b))
	}
	return s
}

func bucket(b loadgen.Bucket) saturation.Bucket {
	return saturation.Bucket{Completed: b.Completed, Responses: b.Responses,
		Latency: b.Latency.Seconds(), Service: b.Service.Seconds(), Late: b.Late}
}
