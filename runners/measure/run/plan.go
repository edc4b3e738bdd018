package run

import (
	"cmp"
	"slices"
	"time"

	"dbbench/runners/define/matrix"
	"dbbench/runners/judge/questions"
	"dbbench/runners/results"
)

// langs are the run's languages in the order of its variants.
func (r *runner) langs() []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range r.vs {
		if !seen[v.Lang] {
			seen[v.Lang] = true
			out = append(out, v.Lang)
		}
	}
	return out
}

// budgets shares the run's budget between its languages in proportion to their
// comparisons (a language without any gets the time of one).
func (r *runner) budgets() map[string]time.Duration {
	weight := map[string]int{}
	total := 0
	for _, lang := range r.langs() {
		n := 1
		for _, p := range questions.Pairs(r.res, func(v *results.Variant) bool { return v.Valid }) {
			if p.Other.Lang == lang {
				n++
			}
		}
		weight[lang] = n
		total += n
	}
	out := map[string]time.Duration{}
	for lang, w := range weight {
		out[lang] = r.o.Budget * time.Duration(w) / time.Duration(total)
	}
	return out
}

// measureOrder is the order the languages are measured in: the largest share of the
// budget first, as what a language leaves unspent goes to those after it, and the
// last one's is lost. Ties keep langs' order. In the quick preset that is PHP, which
// reached its 11 comparisons with time to spare when it was measured last, before Go,
// which used all of its share (README.md, "How a language is measured").
func measureOrder(langs []string, budgets map[string]time.Duration) []string {
	out := slices.Clone(langs)
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(budgets[b], budgets[a]) })
	return out
}

// carry shares a phase's unspent budget among the languages still to measure, in
// proportion to their budgets.
func carry(budgets map[string]time.Duration, unspent time.Duration, next []string) {
	var sum time.Duration
	for _, l := range next {
		sum += budgets[l]
	}
	if unspent <= 0 || sum <= 0 {
		return
	}
	for _, l := range next {
		budgets[l] += time.Duration(float64(unspent) * float64(budgets[l]) / float64(sum))
	}
}

// maxConnections is what the database must allow: all the targets of a language run at
// once, each holding up to its pool, plus headroom for the runner's own connections and
// for connections still closing.
func (r *runner) maxConnections() int {
	most := 0
	for _, lang := range r.langs() {
		sum := 0
		for _, v := range r.vs {
			if v.Lang == lang {
				sum += v.Pool
			}
		}
		most = max(most, sum)
	}
	return most + 2*matrix.MaxPool(r.vs) + 50
}

// variant is rv as the matrix names it.
func (r *runner) variant(rv *results.Variant) matrix.Variant { return r.specs[rv.Key].Variant }
