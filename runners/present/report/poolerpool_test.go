package report

import (
	"fmt"
	"strings"
	"testing"

	"dbbench/runners/judge/poolsize"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// Through a transaction pooler the fourth answer says that the app pools are its
// clients and sizes its own pool, the server's connections, for every instance's rate
// together from each family's baseline (the committed sample, run with --pooler).
func TestPoolAnswerThroughAPooler(t *testing.T) {
	r, err := results.Read("../../../reports/sample/pgbouncer-pooled/results.json")
	if err != nil {
		t.Fatal(err)
	}
	p, err := build(judged(t, r))
	if err != nil {
		t.Fatal(err)
	}
	a := flat(answerOf(t, p, "q-pool").Sentence)
	need, _ := poolsize.NeedOf(r.Settings.PoolNeed)
	if !strings.Contains(a, "Through PgBouncer") || !strings.Contains(a, fmt.Sprintf("`default_pool_size` for %.0f req/s together", need.Rate*float64(need.Instances))) {
		t.Fatalf("answer 4 through PgBouncer:\n%s", a)
	}
	sized := 0
	for _, v := range r.Variants {
		if v.Valid && v.Conn == "persistent" && v.Op == "" && v.Layer == r.BaselineOf(v) && v.Stmt == "simple_protocol" {
			ad, ok := poolsize.ThroughPooler(v, need)
			if !ok {
				t.Fatalf("%s: no zero-load count", v.Key)
			}
			if want := fmt.Sprintf("together: Go %d,", max(ad.Pool, ad.Recommended)); !strings.Contains(a, want) || !strings.Contains(a, units.Seconds(ad.Hold.Seconds)) {
				t.Errorf("answer 4 lacks %q:\n%s", want, a)
			}
			sized++
		}
	}
	if sized == 0 {
		t.Fatal("the sample has no Go baseline at simple_protocol")
	}
}
