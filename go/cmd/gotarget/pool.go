package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"dbbench/dsn"
	"dbbench/go/config"
	"dbbench/go/held"
	"dbbench/go/layers"
	"dbbench/go/server"
)

// openPgxLayer opens pgx's pool the way the variant says, as openPool opens
// database/sql's: at most c.Pool connections, each kept (conn=persistent) or closed
// when the request releases it (conn=per-request: AfterRelease destroys it, so every
// request connects anew), each hold timed from acquiring to releasing (holdTimer), and
// checks that the database answers.
func openPgxLayer(ctx context.Context, c config.Config, stderr io.Writer) (*openLayer, error) {
	target, err := connect(c)
	if err != nil {
		return nil, err
	}
	logger := log.New(dsn.Writer(stderr, target.scrub), "", log.LstdFlags)
	pc, err := pgxpool.ParseConfig(target.pgx.ConnString()) // the URL's pool settings (none of dbbench's)
	if err != nil {
		return nil, fmt.Errorf("pgxpool config of %s: %s", target.redacted, target.scrub(err.Error()))
	}
	pc.ConnConfig = target.pgx    // with the execution mode set
	if c.Conn != config.Shipped { // shipped: pgxpool's own (ParseConfig: max(4, NumCPU) connections, an hour's lifetime)
		pc.MaxConns, pc.MaxConnLifetime = int32(c.Pool), connMaxLifetime
	}
	holds := &holdTimer{since: map[*pgx.Conn]time.Time{}, max: int(pc.MaxConns)}
	pc.ConnConfig.Tracer = holds
	if c.Conn == "per-request" {
		pc.AfterRelease = func(*pgx.Conn) bool { return false } // destroy it, not keep it
	}
	sctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	pool, err := pgxpool.NewWithConfig(sctx, pc)
	if err == nil {
		err = pool.Ping(sctx)
	}
	if err != nil {
		if pool != nil {
			pool.Close()
		}
		return nil, fmt.Errorf("cannot reach the database at %s: %s", target.redacted, target.scrub(err.Error()))
	}
	store, err := layers.All[c.Layer].OpenPgx(sctx, pool)
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("start layer %s on %s: %s", c.Layer, target.redacted, target.scrub(err.Error()))
	}
	stats := func() server.PoolStats {
		s := pool.Stat()
		n, d := holds.holds.Stats()
		waits, waited := holds.waits.Stats()
		return server.PoolStats{DBStats: sql.DBStats{
			MaxOpenConnections: int(s.MaxConns()), OpenConnections: int(s.TotalConns()),
			InUse: int(s.AcquiredConns()), Idle: int(s.IdleConns()),
			WaitCount: waits, WaitDuration: waited,
			MaxLifetimeClosed: s.MaxLifetimeDestroyCount(), MaxIdleTimeClosed: s.MaxIdleDestroyCount(),
		}, Holds: n, HeldDuration: int64(d)}
	}
	return &openLayer{store: store, stats: stats, logger: logger, close: pool.Close}, nil
}

// holdTimer times pgx's pooled connections from acquiring to releasing, as held.Counter
// does database/sql's, as the pool's tracer: pgxpool calls TraceRelease in Release
// itself (AfterRelease runs in a goroutine, after the response may have gone). A new
// connection's hold starts once it is made, so a connection per request leaves its
// connecting out, which held counts. It counts the waits for a full pool too, as
// database/sql's WaitCount does: pgxpool's EmptyAcquireCount also counts every acquire
// that makes a new connection, every request's at conn=per-request. The query hooks,
// which a tracer must have, do nothing.
type holdTimer struct {
	mu    sync.Mutex
	since map[*pgx.Conn]time.Time // the connections held now
	max   int                     // the pool's size
	holds held.Counter            // acquire to release
	waits held.Counter            // acquires that found the pool full
}

// acquireKey carries an acquire's start, when it found the pool full, to its end.
type acquireKey struct{}

// TraceAcquireStart notes an acquire that finds every connection held: it waits. The
// holds it keeps tell that without pool.Stat, which allocates, on every request.
func (h *holdTimer) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	h.mu.Lock()
	full := len(h.since) >= h.max
	h.mu.Unlock()
	if full {
		return context.WithValue(ctx, acquireKey{}, time.Now())
	}
	return ctx
}

func (h *holdTimer) TraceAcquireEnd(ctx context.Context, _ *pgxpool.Pool, d pgxpool.TraceAcquireEndData) {
	if t0, ok := ctx.Value(acquireKey{}).(time.Time); ok {
		h.waits.Add(time.Since(t0))
	}
	if d.Err == nil {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.since[d.Conn] = time.Now()
	}
}

func (h *holdTimer) TraceRelease(_ *pgxpool.Pool, d pgxpool.TraceReleaseData) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if t0, ok := h.since[d.Conn]; ok {
		h.holds.Add(time.Since(t0))
		delete(h.since, d.Conn)
	}
}

func (h *holdTimer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (h *holdTimer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
