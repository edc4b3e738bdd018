package report

// Comparison is one finding as the report words it, for outputs other than the report
// (the terminal at the end of a run): the same estimates, formatted the same way, so
// that no figure printed there contradicts the report.
type Comparison struct {
	Question    string // questions.Layer, Stmt, Conn, Server, Rev
	Other, Base string // label of each side: go/nethttp/gorm/interpolate/persistent/pool=64
	QPS, CPU    string // "0.79× [0.76, 0.80] ●" with its mark (MarksLegend), or "not measured"
	Pairs       string // "16 pairs", "6 pairs †" (target not reached), "unpaired, n = 6"
}

// comparisons words fs as the report does.
func comparisons(fs []finding) []Comparison {
	out := make([]Comparison, len(fs))
	for i, f := range fs {
		out[i] = Comparison{Question: f.Question, Other: label(f.Other), Base: label(f.Base),
			QPS: marked(f.QPS), CPU: marked(f.CPU), Pairs: pairsText(f)}
	}
	return out
}

// marked is an estimate with the mark of its verdict, as the report's tables give it.
func marked(e estimate) string {
	if !e.OK {
		return ratioCI(e)
	}
	return ratioCI(e) + " " + marks[e.Verdict]
}
