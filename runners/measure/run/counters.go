package run

import (
	"context"
	"os"
	"time"

	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/servers"
	"dbbench/runners/measure/target"
	"dbbench/runners/results"
	"dbbench/runners/units"
)

// counterSample is every counter read around a slice: CPU time, system calls and
// context switches of each role (the target's process tree, mariadbd, this process,
// which is the load generator), the target runtime's own counters, and the pool's.
type counterSample struct {
	app, db, gen *procstat.Counts
	pooler       *procstat.Counts // the pooler's, where the run started one
	server       *servers.Counts  // the server's own totals (dials, prepares)
	runtime      *target.RuntimeSample
	pool         *target.PoolStats
}

// counters reads them. Only the target's counts must be there: a target that is gone is
// an error; the database's and the runtime's are left out when they cannot be read (a
// server on another host, a runtime that counts nothing).
func (r *runner) counters(ctx context.Context, t *target.Target, pids []int, d *database) (*counterSample, error) {
	c, err := r.appCounters(ctx, t, pids)
	if err != nil {
		return nil, err
	}
	if pids := d.pids(); pids != nil { // our own server: its counts are ours to read
		c.db, _ = procstat.TakeCounts(pids...)
	}
	if pid := d.poolerPID(); pid != 0 {
		c.pooler, _ = procstat.TakeCounts(pid)
	}
	c.server = d.serverCounts(ctx)
	c.gen, _ = procstat.TakeCounts(os.Getpid())
	return c, nil
}

// serverCounts writes the server's dials and prepares per request between two
// readings into rep (nothing when either is missing).
func serverCounts(rep *results.Repetition, start, end *servers.Counts, requests int64) {
	if start == nil || end == nil || requests == 0 {
		return
	}
	rep.Counts[units.DBDials] = float64(end.Connections-start.Connections) / float64(requests)
	if end.PreparesOK {
		rep.Counts[units.DBPrepares] = float64(end.Prepares-start.Prepares) / float64(requests)
	}
}

// sub writes what happened between start and c into rep, per request: CPU of the target
// and the database, each role's system calls and voluntary context switches, the
// runtime's counts and the pool's waits.
func (c *counterSample) sub(start *counterSample, requests int64, rep *results.Repetition) {
	if requests == 0 {
		return
	}
	per := func(x float64) float64 { return x / float64(requests) }
	rep.Counts = map[string]float64{}
	roles := []struct {
		name       string
		end, begin *procstat.Counts
		cpu        *float64
	}{{"app", c.app, start.app, &rep.AppCPU}, {"db", c.db, start.db, &rep.DBCPU}, {"gen", c.gen, start.gen, nil}}
	for _, role := range roles {
		if role.end == nil || role.begin == nil {
			continue
		}
		d := role.end.Sub(role.begin)
		if role.cpu != nil {
			*role.cpu = per(d.Run.Seconds())
		}
		if role.name != "db" { // mariadbd's sockets use recv and send, which this does not count
			rep.Counts[units.Syscalls(role.name)] = per(float64(d.Syscalls()))
		}
		rep.Counts[units.Switches(role.name)] = per(float64(d.Voluntary))
	}
	if c.pooler != nil && start.pooler != nil {
		rep.Counts[units.PoolerCPU] = per(c.pooler.Sub(start.pooler).Run.Seconds())
	}
	serverCounts(rep, start.server, c.server, requests)
	if c.runtime != nil && start.runtime != nil {
		for k, v := range c.runtime.Cumulative {
			if k == "requests" { // the load generator counts them
				continue
			}
			if v0, ok := start.runtime.Cumulative[k]; ok {
				rep.Counts[k+"/op"] = per(v - v0)
			}
		}
		for k, v := range c.runtime.PerRequest {
			rep.Counts[k+"/op"] = v
		}
	}
	if c.pool != nil && start.pool != nil {
		rep.PoolCounted = true
		rep.PoolWaits = c.pool.WaitCount - start.pool.WaitCount
		rep.PoolWaitSeconds = time.Duration(c.pool.WaitDuration - start.pool.WaitDuration).Seconds()
		if n := c.pool.Holds - start.pool.Holds; n > 0 {
			rep.PoolHeld = time.Duration(c.pool.HeldDuration-start.pool.HeldDuration).Seconds() / float64(n)
		}
	}
}
