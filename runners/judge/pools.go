package judge

import (
	"strconv"

	"dbbench/runners/judge/poolsize"
	"dbbench/runners/results"
)

// poolsOf sizes every valid persistent variant that reads the database for the run's
// need; nil when the run has no need or no link.
func poolsOf(r *results.Run, valid []*results.Variant) *Pools {
	need, ok := poolsize.NeedOf(r.Settings.PoolNeed)
	if !ok || r.Link == nil {
		return nil
	}
	if need.AppCores == 0 { // not recorded: --app-cores' default, the run's host's cores
		cores, _ := strconv.Atoi(r.Environment["cpu-count"])
		need.AppCores, need.DBCores = cores, cores
	}
	p := &Pools{Need: need}
	for _, v := range valid {
		if !v.DB || v.Conn != "persistent" || v.Op != "" { // pools are sized for get
			continue
		}
		h, ok := poolsize.Of(v, r.Link)
		if !ok {
			continue
		}
		s := Sized{Variant: v, Hold: h, Advice: poolsize.Size(h, need)}
		s.Pooler, s.PoolerOK = poolsize.ThroughPooler(v, need)
		p.Sized = append(p.Sized, s)
	}
	return p
}
