package report

import (
	"fmt"
	"slices"
	"strings"

	"dbbench/runners/judge"
	"dbbench/runners/judge/questions"
	"dbbench/runners/judge/revcost"
	"dbbench/runners/present/chart"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// abParts fills the page of a run of two revisions (dbbench ab): the revisions under
// the title, one answer, "Did B cost anything?", and its table. The three questions
// have no pairs in such a run: each variant is compared with itself only.
func (d *data) abParts(p *page, fs []finding) error {
	a := d.judged.Revision
	if a == nil {
		return fmt.Errorf("report: a run of two revisions without its answer")
	}
	p.Revisions = revisionLines(d.run.AB)
	p.Answers = []answer{abAnswer(a, byQuestion(fs, questions.Rev))}
	p.Sections = []section{abSection(a, p.Answers[0])}
	return nil
}

// revisionLines name A and B, and what their builds record differently.
func revisionLines(ab *results.AB) []string {
	out := []string{revLine("A", ab.A), revLine("B", ab.B)}
	var diffs []string
	for _, k := range envKeys(ab.A.Environment, ab.B.Environment) {
		if a, b := ab.A.Environment[k], ab.B.Environment[k]; a != b {
			diffs = append(diffs, fmt.Sprintf("%s %s → %s", k, orNone(a), orNone(b)))
		}
	}
	if len(diffs) == 0 {
		return append(out, fmt.Sprintf("The two builds record the same toolchain and library versions (Go target: %s).", orNone(ab.A.Environment["gotarget-go"])))
	}
	return append(out, "The builds differ in: "+strings.Join(diffs, "; ")+".")
}

func revLine(side string, r *results.Rev) string {
	name := r.Name
	if r.Dirty {
		name += ", with uncommitted changes"
	}
	return fmt.Sprintf("%s = %s (%s): “%s”", side, r.ID, name, r.Subject)
}

func envKeys(ms ...map[string]string) []string {
	var out []string
	for _, m := range ms {
		for k := range m {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// sharedLabel names the variant both sides are: its label without rev=.
func sharedLabel(v *results.Variant) string {
	w := *v
	w.Rev = ""
	return label(&w)
}

// abAnswer answers "Did B cost anything?": a change in commands first, then the
// figures B made worse (past the threshold first), those it made better, and how many
// stayed the same or are undecided.
func abAnswer(a *revcost.Answer, fs []finding) answer {
	t := a.AB.Margin
	ans := answer{ID: "q-ab", Title: "Did B cost anything?", Evidence: evidence(fs), Forest: abForest(a)}
	if len(a.Variants) == 0 {
		ans.Sentence = "No variant was measured at both revisions: nothing could be compared. " + strings.Join(a.Broken, "; ")
		return ans
	}
	n := tally(a)
	var clauses []string
	if len(a.Broken) > 0 {
		clauses = append(clauses, "B broke what A served: "+strings.Join(a.Broken, "; "))
	}
	if c := commandClause(a); c != "" {
		clauses = append(clauses, c)
	}
	past := fmt.Sprintf("past ±%g%%", 100*t)
	if items := figures(a, true, true); len(items) > 0 {
		clauses = append(clauses, "worse "+past+": "+strings.Join(items, "; "))
	}
	if items := figures(a, false, true); len(items) > 0 {
		clauses = append(clauses, "better "+past+": "+strings.Join(items, "; "))
	}
	clauses = append(clauses, insideClause(a, n))
	ans.Sentence = leadWord(a, n) + " " + sentence(clauses)
	return ans
}

// insideClause says what lies inside the threshold: the figures that changed by an
// amount the interval cannot tell from it, with how many would by chance alone, and
// how many are the same or undecided.
func insideClause(a *revcost.Answer, n count) string {
	t := 100 * a.AB.Margin
	s := fmt.Sprintf("of the %d figures compared, %d are the same within ±%g%% and %d undecided", n.all, n.same, t, n.undecided)
	var inside []string
	for _, worse := range []bool{true, false} {
		if items := figures(a, worse, false); len(items) > 0 {
			inside = append(inside, fmt.Sprintf("%s, its interval reaching inside ±%g%%: %s", side(worse), t, strings.Join(items, "; ")))
		}
	}
	if len(inside) == 0 {
		return s
	}
	// A 95% interval excludes no change with chance 2.5% on each side when nothing
	// changed: among many figures, a few such are expected.
	return fmt.Sprintf("%s; %s (when nothing changes, about 1 figure in 20 lands here by chance: %.1f of %d)",
		s, strings.Join(inside, "; "), float64(n.all)/20, n.all)
}

// count is how many figures got each verdict, and how many are worse past the threshold.
type count struct{ all, worsePast, same, undecided int }

func tally(a *revcost.Answer) count {
	var n count
	for _, v := range a.Variants {
		for _, e := range v.Figures {
			n.all++
			switch {
			case e.Worse && e.Beyond:
				n.worsePast++
			case e.Same():
				n.same++
			case !e.Changed():
				n.undecided++
			}
		}
	}
	return n
}

// leadWord is the answer in a few words: yes when B broke a variant, sends more
// commands or is worse past the threshold; no when every figure is the same or better;
// else nothing past the threshold, which is all a run can say of intervals that reach
// inside it.
func leadWord(a *revcost.Answer, n count) string {
	grew := slices.ContainsFunc(a.Variants, func(v revcost.Pair) bool { return v.Commands.Grew() })
	switch {
	case n.worsePast > 0 || grew || len(a.Broken) > 0:
		return "Yes."
	case n.same == n.all || len(figures(a, true, false))+n.undecided == 0:
		return "No."
	}
	return fmt.Sprintf("Nothing past ±%g%%.", 100*a.AB.Margin)
}

// commandClause names every variant whose commands per request changed.
func commandClause(a *revcost.Answer) string {
	var items []string
	for _, v := range a.Variants {
		if v.Commands.Changed() {
			items = append(items, sharedLabel(v.B)+" sends "+v.Commands.String())
		}
	}
	if len(items) == 0 {
		return ""
	}
	return "commands per request changed (counted exactly): " + strings.Join(items, "; ")
}

// side is a changed figure's way: worse or better.
func side(worse bool) string {
	if worse {
		return "worse"
	}
	return "better"
}

// figures lists the figures that changed, worse or better, past the threshold or not,
// per variant: "go/nethttp/raw/…/pool=8: app CPU per request +31.0% [+28.0%, +34.5%]".
func figures(a *revcost.Answer, worse, beyond bool) []string {
	var out []string
	for _, v := range a.Variants {
		var of []string
		for _, e := range v.Figures {
			if e.Changed() && e.Worse == worse && e.Beyond == beyond {
				of = append(of, fmt.Sprintf("%s %s", e.Name, revcost.Change(e.Estimate)))
			}
		}
		if len(of) > 0 {
			out = append(out, sharedLabel(v.B)+": "+strings.Join(of, ", "))
		}
	}
	return out
}

// rowLabel is a variant under its language and server's heading: "raw/interpolate/
// persistent" (its pool is in the hover text).
func rowLabel(v *results.Variant) string {
	if !v.DB {
		return v.Layer
	}
	return v.Layer + "/" + v.Stmt + "/" + v.Conn
}

// abForest is the answer's chart: each variant's app CPU per request, B ÷ A.
func abForest(a *revcost.Answer) *chart.Forest {
	var rows []chart.ForestRow
	last := ""
	for _, v := range a.Variants {
		i := slices.IndexFunc(v.Figures, func(e revcost.Figure) bool { return e.Unit == revcost.Metrics[0].Unit })
		if i < 0 {
			continue
		}
		e := v.Figures[i]
		if head := langName(v.B.Lang) + " under " + serverName(v.B.Server); head != last {
			rows = append(rows, chart.ForestRow{Label: head, Head: true})
			last = head
		}
		r := chart.ForestRow{Label: rowLabel(v.B), Est: e.Value, Value: units.Ratio(e.Value),
			Color: chart.StmtColor(v.B.Stmt), Hollow: chart.Hollow(v.B.Conn),
			Tip: fmt.Sprintf("%s: %s %s, %s", sharedLabel(v.B), e.Name, revcost.Change(e.Estimate), e.Word(a.AB.Margin))}
		if e.HasInterval() {
			r.Lo, r.Hi = e.Lo, e.Hi
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		return nil
	}
	return &chart.Forest{Title: "App CPU per request, B ÷ A", XLabel: "ratio, 95% interval (1 = no change)", Width: answerWidth, Rows: rows}
}

// FirstAnswer is the report's first answer as one paragraph, for a terminal: the
// question, its sentence and its evidence.
func FirstAnswer(j *judge.Run) (string, error) {
	p, err := build(j)
	if err != nil {
		return "", err
	}
	if len(p.Answers) == 0 {
		return "", fmt.Errorf("report: no answer")
	}
	a := p.Answers[0]
	text := strings.TrimSpace(endStop(a.Title) + " " + a.Sentence + " " + a.Evidence)
	return linkTerms(text, "", func(words, _ string) string { return words }), nil // a terminal has no links
}
