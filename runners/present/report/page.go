package report

import (
	"slices"
	"strings"

	"dbbench/runners/judge"
	"dbbench/runners/judge/questions"
	"dbbench/runners/present/doc"
	"dbbench/runners/results"
)

// page is the one model of a run's report: report.md and report.html both render it,
// and its charts are drawn from it. Package judge computed its figures; build and the
// files it calls choose and word them (answers, tables); rendering only lays it out.
type page struct {
	Glossary string // reports/README.md from the run directory: term() links to it
	RunLine  string
	// Revisions name A and B of a run of two revisions (dbbench ab), nil otherwise.
	Revisions []string
	Alerts    []string
	Answers   []answer
	Sections  []section
	Profile   *section // where the CPU goes, when the run profiled its variants
	Variants  []grid
	Filters   []filter
	Figures   []figure // throughput, latency, CPU by role
	Appendix  appendix
	// Comparisons are the findings as the report words them, for the terminal.
	Comparisons []Comparison
	findings    []finding // what the page words, for findings.csv
}

// section is one question's evidence, or the profile's.
type section struct {
	ID, Title  string
	Intro      []string
	Grids      []grid
	Figures    []figure
	Paragraphs []string // after the tables
	Empty      string   // said instead when there is nothing to show
}

// figure is a caption, a legend and small multiples: panels side by side.
type figure = doc.Figure

// filter is a select over one key column of the variant tables.
type filter struct {
	Key    string
	Col    int
	Values []string
}

type appendix struct {
	Groups      []appendixGroup
	Ceiling     []string
	Trips       grid
	Connections *grid // what a new connection costs by path (nil: not measured)
	Invalid     []string
	Flagged     []string
	Yardstick   string
	Rounds      []string // unpaired runs only: machine-wide drift by round
	RoundsGrid  *grid
	Environment grid
}

// readCellsCounting says how to read a comparison cell, naming what the run's counts
// are (countsOf); its terms are marked for the glossary.
func readCellsCounting(counts string) string {
	return "Each cell is one comparison: the ratio of the other side's QPS and app CPU per request to the reference's, " +
		"estimated from the pairs (" + term("Hodges–Lehmann", "hodges-lehmann") + ": the typical ratio within a pair, where the machine's drift cancels), " +
		"± the half-width of its " + term("95% interval", "wilcoxon-interval") + " and a " + term("mark", "marks") + " for what the interval decides; the extra app CPU, allocations and bytes allocated " +
		"per request (differences of the medians in “Every variant”, as printed there: these do not depend on the machine's speed, except CPU); " +
		"the change in " + counts + "; the pairs. A ratio is not the ratio of those medians, which pool all of each side's slices, " +
		"taken at other moments of the drift: the appendix prints both. Each cell links to its full sentence in the appendix."
}

// countsOf names what the variants' counts are: MySQL's commands, PostgreSQL's
// frontend messages, or both.
func countsOf(vs []*results.Variant) string {
	mysql, postgres := results.CountedProtocols(vs)
	switch {
	case postgres && mysql:
		return "MySQL commands and PostgreSQL's frontend messages"
	case postgres:
		return "PostgreSQL's frontend messages"
	}
	return "MySQL commands"
}

// build lays out the whole page of a run judged: which findings answer which
// question, in which words and tables.
func build(j *judge.Run) (*page, error) {
	d, r := load(j), j.Results
	fs := d.findings()
	p := &page{Glossary: defaultGlossary, RunLine: d.runLine(), Alerts: d.alerts(fs), Comparisons: comparisons(fs), findings: fs}
	if r.AB != nil {
		if err := d.abParts(p, fs); err != nil {
			return nil, err
		}
	} else {
		// The three questions are get's; the other ops have a section of their own, unless
		// a question was asked of another op only (the ops preset's update at every stmt).
		qs := [][]string{{questions.Layer}, {questions.Stmt}, {questions.Shipped, questions.Conn, questions.Server}}
		cells := readCellsCounting(countsOf(r.Variants))
		legend := ""       // the first section that explains how to read a cell; the others point to it
		layerless := false // answer 1 has no layer against its raw driver outside related rows
		for i, q := range qs {
			of, op := forAnswer(fs, q)
			layerless = layerless || (i == 0 && len(of) == 0)
			layer := func(fs []finding) answer { return layerAnswer(fs, r.Langs) }
			stmt := func(fs []finding) answer { return stmtAnswer(fs, r.Langs) }
			conn := func(fs []finding) answer { return connAnswer(fs, r.Langs) }
			a := []func([]finding) answer{layer, stmt, conn}[i](onDBOnly(of, r.FirstDatabase()))
			if op != "" {
				a.Sentence = "For op=" + op + ": " + strings.ToLower(a.Sentence[:1]) + a.Sentence[1:]
			}
			p.Answers = append(p.Answers, a)
			s := questionSection(of, a, q, cells)
			if legend != "" && len(s.Intro) > 0 && s.Intro[0] == cells {
				s.Intro[0] = "Cells read as in " + legend + "."
			} else if len(s.Intro) > 0 && s.Intro[0] == cells {
				legend = "[“" + a.Title + "”](#" + a.ID + ")"
			}
			p.Sections = append(p.Sections, s)
		}
		stmtMode := func(f finding) string { return f.Other.Stmt }
		if c := caveats(r.Langs, byQuestion(fs, questions.Stmt), stmtMode); c != "" && p.Sections[1].Empty == "" {
			p.Sections[1].Paragraphs = append(p.Sections[1].Paragraphs, c)
		}
		connMode := func(f finding) string { return f.Base.Conn }
		if c := caveats(r.Langs, byQuestion(fs, questions.Conn), connMode); c != "" && p.Sections[2].Empty == "" {
			p.Sections[2].Paragraphs = append(p.Sections[2].Paragraphs, c)
		}
		p.Answers = append(p.Answers, d.poolAnswer())
		p.Sections = append(p.Sections, d.poolSection(p.Answers[3]))
		if a, s, ok := d.dbAnswer(fs); ok {
			p.Answers = append(p.Answers, a)
			p.Sections = append(p.Sections, s)
		}
		if g, ps, ok := d.serverContrast(); ok && p.Sections[2].Empty == "" {
			p.Sections[2].Grids = append(p.Sections[2].Grids, g)
			p.Sections[2].Paragraphs = append(p.Sections[2].Paragraphs, ps...)
		}
		if s, pointer, ok := d.opsSection(fs); ok {
			p.Sections = append(p.Sections, s)
			if pointer != "" {
				p.Answers[0].Sentence += " " + pointer
			}
		}
		if s, pointer, ok := d.relatedSection(fs); ok {
			p.Sections = append(p.Sections, s)
			switch {
			case pointer != "" && layerless: // a run of related rows alone
				p.Answers[0].Sentence = pointer
			case pointer != "":
				p.Answers[0].Sentence += " " + pointer
			}
		}
		if pointer := d.textsPointer(fs); pointer != "" {
			p.Answers[1].Sentence += " " + pointer
		}
	}
	// How much evidence stands behind each answer opens its section, not the first
	// screen, which says the answers alone.
	for _, a := range p.Answers {
		for i := range p.Sections {
			if p.Sections[i].ID == a.ID && a.Evidence != "" && p.Sections[i].Empty == "" {
				p.Sections[i].Intro = append([]string{a.Evidence}, p.Sections[i].Intro...)
			}
		}
	}
	onceEach(p.Sections)
	p.Profile = d.profileSection(fs)
	p.Variants = []grid{
		d.variantGrid("t-variants", "Medians of each variant's "+term("slices", "slice")+" with benchstat's 95% interval (± its larger side). These move with the machine's speed; the ratios above do much less.", timeColumns, true),
		d.variantGrid("t-counts", "Counts per request that do not depend on the machine's speed: medians of the slices.", countColumns, false),
	}
	p.Variants[1].Notes = append(p.Variants[1].Notes, countsNote)
	p.Filters = filters(d.valid)
	figs, err := d.figures()
	if err != nil {
		return nil, err
	}
	p.Figures = figs
	p.Appendix = appendix{Groups: d.appendixGroups(fs), Ceiling: d.ceiling(), Trips: d.tripGrid(), Connections: d.connectionsGrid(),
		Invalid: d.invalidLines(), Flagged: d.flagged(), Yardstick: d.yardstick(), Environment: d.environmentGrid()}
	if len(fs) > 0 && !fs[0].Paired {
		p.Appendix.Rounds, p.Appendix.RoundsGrid = roundsSection(d.judged.Rounds)
	}
	return p, nil
}

// onceEach keeps a note that several tables share (the marks' legend) under the
// first of them only; the others point to it.
func onceEach(ss []section) {
	seen := map[string]bool{}
	for i := range ss {
		for j := range ss[i].Grids {
			notes := ss[i].Grids[j].Notes
			for k, n := range notes {
				i := strings.Index(n, marksLegendStart)
				if i < 0 {
					continue
				}
				if legend := n[i:]; seen[legend] {
					notes[k] = n[:i] + "Marks (● ◐ = ? †) as under the first table of this kind above."
				} else {
					seen[legend] = true
				}
			}
		}
	}
}

// onDBOnly keeps the findings on database server db: the first screen answers on one
// server (results.Run.FirstDatabase), and the MariaDB-and-MySQL answer says where the other differs;
// the sections keep both.
func onDBOnly(fs []finding, db string) []finding {
	return slices.DeleteFunc(slices.Clone(fs), func(f finding) bool { return f.Other.Database != db })
}

// forAnswer are the findings an answer of questions qs speaks of: get's, or when get
// has none, those of the first op that has any, which it names.
func forAnswer(fs []finding, qs []string) ([]finding, string) {
	var of []finding
	for _, q := range qs {
		of = append(of, byQuestion(fs, q)...)
	}
	of = slices.DeleteFunc(of, func(f finding) bool { return f.Other.Fetch != "" }) // related rows' section answers those
	if get := atGet(of); len(get) > 0 || len(of) == 0 {
		return get, ""
	}
	op := of[0].Other.Op
	return slices.DeleteFunc(of, func(f finding) bool { return f.Other.Op != op }), op
}

// questionSection holds the tables and charts of the answer's questions.
func questionSection(fs []finding, a answer, qs []string, cells string) section {
	s := section{ID: a.ID, Title: a.Title}
	var of []finding
	for _, q := range qs {
		of = append(of, byQuestion(fs, q)...)
	}
	if len(of) == 0 {
		s.Empty = a.Sentence
		return s
	}
	s.Intro = []string{cells}
	for _, q := range qs {
		s.Grids = append(s.Grids, comparisonGrids(byQuestion(fs, q), q)...)
		if f, ok := comparisonFigure(byQuestion(fs, q), q); ok {
			s.Figures = append(s.Figures, f)
		}
	}
	return s
}

// filters offer each key column's values, when it has more than one.
func filters(vs []*results.Variant) []filter {
	var out []filter
	for i, k := range keyHeadOf(vs) {
		var vals []string
		for _, v := range vs {
			s := keyCells(v, hasOps(vs), severalDBs(vs))[i].Lines[0]
			if !slices.Contains(vals, s) {
				vals = append(vals, s)
			}
		}
		if len(vals) > 1 {
			out = append(out, filter{Key: k, Col: i, Values: vals})
		}
	}
	return out
}
