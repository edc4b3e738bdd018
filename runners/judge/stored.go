package judge

import (
	"path/filepath"
	"slices"
	"strings"

	"dbbench/runners/judge/poolsize"
	"dbbench/runners/judge/revcost"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// File and schema of a stored judgement. results.json keeps what was measured (and
// the findings the run's stopping rule read); judgement.json beside it keeps what the
// run's page shows, computed from it once, so that a tool reads the answers without
// redoing the statistics and a page's figures can be traced to one file. It is
// written whenever the page is (a run's end, ab, profile, dbbench report DIR), from the
// same Run the page formats.
const (
	StoredFile   = results.JudgementFile
	StoredSchema = "dbbench/judgement/v1"
)

// Stored is a Run as judgement.json holds it: variants named by key, intervals with
// null bounds where there is none.
type Stored struct {
	Schema      string             `json:"schema"`
	Valid       []string           `json:"valid"`
	Invalid     []string           `json:"invalid,omitempty"`
	Summaries   []StoredSummary    `json:"summaries"`
	Comparisons []StoredComparison `json:"comparisons,omitempty"`
	Unpaired    []StoredComparison `json:"unpaired,omitempty"`
	Pools       *StoredPools       `json:"pools,omitempty"`
	Revision    *StoredRevision    `json:"revision,omitempty"`
	Rounds      []Round            `json:"rounds,omitempty"`
	Yardstick   []Reading          `json:"yardstick,omitempty"`
}

// StoredSummary is one variant's median and interval in one unit (the summary names
// its unit).
type StoredSummary struct {
	Variant string        `json:"variant"`
	Summary stats.Summary `json:"summary"`
}

// StoredComparison is a question's pair judged: Other ÷ Base.
type StoredComparison struct {
	Question string                    `json:"question"`
	Base     string                    `json:"base"`
	Other    string                    `json:"other"`
	QPS      *results.Judged           `json:"qps,omitempty"`
	AppCPU   *results.Judged           `json:"app_cpu,omitempty"`
	DBCPU    *results.Judged           `json:"db_cpu,omitempty"`
	Shifts   map[string]stats.Estimate `json:"shifts,omitempty"` // a rows comparison's differences, by unit
}

// StoredPools is the fourth answer's sizing.
type StoredPools struct {
	Need  poolsize.Need `json:"need"`
	Sized []StoredSized `json:"sized"`
}

// StoredSized is one variant's pool.
type StoredSized struct {
	Variant string           `json:"variant"`
	Hold    poolsize.Hold    `json:"hold"`
	Advice  poolsize.Advice  `json:"advice"`
	Pooler  *poolsize.Advice `json:"pooler,omitempty"`
}

// StoredRevision is a run of two revisions' answer: each variant's figures, B ÷ A.
type StoredRevision struct {
	A           string          `json:"a"`
	B           string          `json:"b"`
	Margin      float64         `json:"margin"`
	Variants    []StoredRevPair `json:"variants"`
	Unpaired    []string        `json:"unpaired,omitempty"`
	Broken      []string        `json:"broken,omitempty"`
	Regressions []string        `json:"regressions"` // what fails --fail-on regression
}

// StoredRevPair is one variant at B against itself at A.
type StoredRevPair struct {
	Variant  string            `json:"variant"` // without rev=
	Reached  bool              `json:"reached"`
	Figures  []StoredFigure    `json:"figures"`
	Commands *revcost.Commands `json:"commands,omitempty"`
}

// StoredFigure is one figure of a revision pair, judged in its direction.
type StoredFigure struct {
	Unit   string         `json:"unit"`
	Ratio  results.Judged `json:"ratio"`
	Worse  bool           `json:"worse"`
	Beyond bool           `json:"beyond"` // the whole interval past the margin
}

// Store is j in the form judgement.json holds.
func (j *Run) Store() *Stored {
	s := &Stored{Schema: StoredSchema, Valid: results.Keys(j.Valid), Invalid: results.Keys(j.Invalid),
		Rounds: j.Rounds, Yardstick: j.Yardstick}
	key := map[string]string{} // bench.txt's name → the variant's key
	for _, v := range j.Results.Variants {
		key[v.Name] = v.Key
	}
	for k, sum := range j.Summaries {
		s.Summaries = append(s.Summaries, StoredSummary{Variant: key[k.Name], Summary: sum})
	}
	slices.SortFunc(s.Summaries, func(a, b StoredSummary) int {
		return strings.Compare(a.Variant+" "+a.Summary.Unit, b.Variant+" "+b.Summary.Unit)
	})
	for _, c := range j.Results.Comparisons {
		jc := j.Comparisons[c]
		if jc == nil {
			continue
		}
		s.Comparisons = append(s.Comparisons, StoredComparison{Question: c.Question, Base: c.Base, Other: c.Other,
			QPS: jc.Finding.QPS, AppCPU: jc.Finding.AppCPU, DBCPU: jc.DBCPU, Shifts: jc.Shifts})
	}
	for _, u := range j.Unpaired {
		s.Unpaired = append(s.Unpaired, StoredComparison{Question: u.Question, Base: u.Base.Key, Other: u.Other.Key, QPS: u.QPS, AppCPU: u.AppCPU})
	}
	if j.Pools != nil {
		s.Pools = &StoredPools{Need: j.Pools.Need}
		for _, z := range j.Pools.Sized {
			sz := StoredSized{Variant: z.Variant.Key, Hold: z.Hold, Advice: z.Advice}
			if z.PoolerOK {
				sz.Pooler = &z.Pooler
			}
			s.Pools.Sized = append(s.Pools.Sized, sz)
		}
	}
	if a := j.Revision; a != nil {
		s.Revision = storedRevision(a)
	}
	return s
}

func storedRevision(a *revcost.Answer) *StoredRevision {
	r := &StoredRevision{A: a.AB.A.ID, B: a.AB.B.ID, Margin: a.AB.Margin, Unpaired: a.Unpaired, Broken: a.Broken,
		Regressions: a.Regressions()}
	for _, p := range a.Variants {
		sp := StoredRevPair{Variant: revcost.Label(p.B), Reached: p.Reached, Commands: p.Commands}
		for _, f := range p.Figures {
			sp.Figures = append(sp.Figures, StoredFigure{Unit: f.Unit, Ratio: f.Judged, Worse: f.Worse, Beyond: f.Beyond})
		}
		r.Variants = append(r.Variants, sp)
	}
	return r
}

// Write writes j's judgement.json into dir, atomically as results.json is written.
func (j *Run) Write(dir string) error {
	return results.WriteJSON(filepath.Join(dir, StoredFile), j.Store())
}
