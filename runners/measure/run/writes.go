package run

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"dbbench/fixtures"
	"dbbench/runners/measure/loadgen"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/servers"
	"dbbench/runners/results"
)

// What a database that dies under writes had acknowledged. A slice or a block that
// measures inserts or updates opens a ledger just before its load: the visits of the
// fixture rows and the rows inserted so far. The load generator keeps the name of each
// insert answered 2xx (loadgen.Config.KeepAcked) and counts each update's 2xx. When the
// database dies, the run brings it back (the embedded server restarted on its datadir,
// a dsn server waited for) and counts what the table holds: every acknowledged insert
// by its name, the visits by their sum (each acknowledged visit is +1 on one row).

// ErrDatabaseDied ends a run whose database died or stopped answering: exit status 5.
var ErrDatabaseDied = errors.New("the database died")

// BackWithin is how long a dsn server that stopped answering is waited for before the
// writes it acknowledged are counted.
const BackWithin = 60 * time.Second

// ledger is the writes of the slice or block under way, or, once it ended (done), of
// the last one that wrote: a kill found only afterwards (an insert slice whose few
// failed requests passed, a kill between slices) is counted against it.
type ledger struct {
	visits0 int64 // SUM(visits) of the fixture rows before the load
	maxID   int64 // the highest id before the load: its inserts land above
	inserts []*results.Variant
	updates []*results.Variant
	res     map[*results.Variant][]*loadgen.Result // a slice's lead-in and its load
	done    bool
}

// openLedger starts the ledger of vs's load on each server vs write to, in place of
// its last one; the caller marks them done (closeLedger) once the load's results are in.
func (r *runner) openLedger(ctx context.Context, vs []*results.Variant) error {
	for _, name := range r.dbOrder {
		on := slices.DeleteFunc(slices.Clone(vs), func(v *results.Variant) bool { return v.Database != name })
		if err := r.openLedgerOn(ctx, r.dbs[name], on); err != nil {
			return err
		}
	}
	return nil
}

// openLedgerOn opens d's ledger for vs, which are measured on d, if any of them writes.
func (r *runner) openLedgerOn(ctx context.Context, d *database, vs []*results.Variant) error {
	l := &ledger{res: map[*results.Variant][]*loadgen.Result{}}
	for _, v := range vs {
		switch op, _ := opOf(r.specs[v.Key].Op); op {
		case loadgen.Insert:
			l.inserts = append(l.inserts, v)
		case loadgen.Update:
			l.updates = append(l.updates, v)
		}
	}
	if len(l.inserts)+len(l.updates) == 0 {
		return nil
	}
	var err error
	if l.visits0, err = r.visitsSum(ctx, d); err != nil {
		return err
	}
	if err = d.admin.QueryRowContext(ctx, "SELECT COALESCE(MAX(id), 0) FROM users").Scan(&l.maxID); err != nil {
		return fmt.Errorf("read the highest id: %w", err)
	}
	d.ledger = l
	return nil
}

// keep adds v's load result to the ledger under way on its server.
func (r *runner) keep(v *results.Variant, res *loadgen.Result) {
	if l := r.on(v).ledger; l != nil && !l.done && res != nil {
		l.res[v] = append(l.res[v], res)
	}
}

// closeLedger marks the ledgers under way done: they stay, for a kill found later.
func (r *runner) closeLedger() {
	for _, d := range r.dbs {
		if d.ledger != nil {
			d.ledger.done = true
		}
	}
}

// died ends the run for cause, d's death, once: with a ledger, it first brings d back
// and counts what it had acknowledged (results.Run.Writes).
func (r *runner) died(ctx context.Context, d *database, cause error) error {
	if r.dead != nil {
		return r.dead
	}
	r.dead = fmt.Errorf("%w: %v", ErrDatabaseDied, cause)
	if d.ledger == nil {
		return r.dead
	}
	when := "mid-write"
	if d.ledger.done {
		when = "after the last slice or block that wrote"
	}
	fmt.Fprintf(r.o.Log, "the database died (%v): counting the writes it acknowledged once it is back\n", cause)
	w := r.countWrites(ctx, d)
	r.res.Writes = w
	r.dead = fmt.Errorf("%w %s (%v); %s", ErrDatabaseDied, when, cause, writesSummary(w))
	return r.dead
}

// countWrites brings the database back and counts the ledger's writes in the table.
func (r *runner) countWrites(ctx context.Context, d *database) *results.WritesAfterDeath {
	w := &results.WritesAfterDeath{}
	back, err := bringBack(ctx, d)
	w.Back = back
	if err == nil {
		w.Durability, w.Safe, err = durability(ctx, d)
	}
	if err == nil {
		w.Counts, err = r.countLedger(ctx, d)
	}
	if err != nil {
		w.Error = err.Error()
	}
	return w
}

// bringBack restarts the embedded server on its datadir, or waits BackWithin for a
// server dbbench did not start to answer again.
func bringBack(ctx context.Context, d *database) (string, error) {
	restarted, err := d.db.Restart(ctx)
	switch {
	case errors.Is(err, provider.ErrStillRunning):
		// Its process lives on (hung): wait for it to answer, as for a server of the user's.
	case err != nil:
		return "not restarted", err
	case restarted:
		return "restarted on the same datadir", d.admin.PingContext(ctx)
	}
	start := time.Now()
	for time.Since(start) < BackWithin {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err = d.admin.PingContext(pctx)
		cancel()
		if err == nil {
			return fmt.Sprintf("answering again after %v", time.Since(start).Round(time.Second)), nil
		}
		if !sleepCtx(ctx, 500*time.Millisecond) {
			return "interrupted while waiting", ctx.Err()
		}
	}
	return "not back", fmt.Errorf("the server did not answer within %v: nothing counted (%v)", BackWithin, err)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// durability reads the settings that decide whether an acknowledged commit survives a
// killed server (servers.Server.Durability).
func durability(ctx context.Context, d *database) (string, bool, error) {
	return servers.For(d.db.Protocol()).Durability(ctx, d.admin)
}

// countLedger counts the ledger's writes in the table: each acknowledged insert by its
// name, the visits by their sum.
func (r *runner) countLedger(ctx context.Context, d *database) ([]results.WrittenCount, error) {
	var out []results.WrittenCount
	l := d.ledger
	if len(l.inserts) > 0 {
		c, err := countInserts(ctx, d)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(l.updates) > 0 {
		visits1, err := r.visitsSum(ctx, d)
		if err != nil {
			return nil, err
		}
		c := results.WrittenCount{Variants: results.Keys(l.updates), Op: string(loadgen.Update)}
		for _, v := range l.updates {
			for _, res := range l.res[v] {
				c.Acknowledged += successes(res)
			}
		}
		gained := visits1 - l.visits0
		c.Missing, c.Extra = max(0, c.Acknowledged-gained), max(0, gained-c.Acknowledged)
		out = append(out, c)
	}
	return out, nil
}

// countInserts finds each acknowledged insert's name among the rows inserted since the
// ledger opened, name by name: two insert variants of one block may send the same
// names (their counters start from the same seed), so each name's acknowledged inserts
// are set against its rows.
func countInserts(ctx context.Context, d *database) (results.WrittenCount, error) {
	l := d.ledger
	c := results.WrittenCount{Variants: results.Keys(l.inserts), Op: string(loadgen.Insert)}
	rows, err := d.admin.QueryContext(ctx, d.db.Rebind("SELECT name FROM users WHERE id > ?"), l.maxID)
	if err != nil {
		return c, fmt.Errorf("read the inserted rows: %w", err)
	}
	defer rows.Close()
	present := map[string]int64{}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return c, fmt.Errorf("read the inserted rows: %w", err)
		}
		present[name]++
	}
	if err := rows.Err(); err != nil {
		return c, fmt.Errorf("read the inserted rows: %w", err)
	}
	acked := map[string]int64{}
	for _, v := range l.inserts {
		for _, res := range l.res[v] {
			for _, n := range res.AckedInserts {
				acked[fixtures.InsertedName(n)]++
				c.Acknowledged++
			}
		}
	}
	for name, a := range acked {
		c.Missing += max(0, a-present[name])
	}
	for name, p := range present {
		c.Extra += max(0, p-acked[name])
	}
	return c, nil
}

// writesSummary is the line a user reads: found against acknowledged, per op.
func writesSummary(w *results.WritesAfterDeath) string {
	if w.Error != "" {
		return fmt.Sprintf("the writes it acknowledged could not be counted (%s: %s)", w.Back, w.Error)
	}
	parts := make([]string, 0, len(w.Counts))
	missing := false
	for _, c := range w.Counts {
		noun := map[string]string{string(loadgen.Insert): "inserts", string(loadgen.Update): "visits"}[c.Op]
		p := fmt.Sprintf("%d of %d acknowledged %s in the table", c.Acknowledged-c.Missing, c.Acknowledged, noun)
		if c.Extra > 0 {
			p += fmt.Sprintf(" (and %d more, committed as the kill cut off their answers)", c.Extra)
		}
		parts = append(parts, p)
		missing = missing || c.Missing > 0
	}
	verdict := "nothing acknowledged is missing"
	if missing {
		verdict = "ACKNOWLEDGED WRITES ARE MISSING"
	}
	return fmt.Sprintf("once %s: %s; %s (%s)", w.Back, strings.Join(parts, ", "), verdict, w.Durability)
}
