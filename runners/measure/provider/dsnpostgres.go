package provider

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"dbbench/dsn"
	"dbbench/dsn/protocol"
	"dbbench/fixtures"
	"dbbench/runners/measure/secret"
)

// attachPostgres is the dsn provider on PostgreSQL: an existing server reached by its
// URL, with the MySQL path's rules (attachDSN). It changes nothing there but dbbench's
// own users table (the loader refuses one that is not dbbench's), and refuses a server
// that cannot hold the run's connections or a user who cannot create, fill, read and
// drop a table. pg_stat_statements is used where it is installed; without it the server's
// own count is left out, and said so.
func attachPostgres(ctx context.Context, o Options) (*DB, error) {
	who := o.KindName() + " provider" // dsn, or testcontainers attaching to its container
	switch {
	case o.DSN == "":
		return nil, errors.New(who + ": no PostgreSQL URL given (--dsn-file holding postgres://user:password@host:port/database)")
	case protocol.Of(o.DSN) != protocol.Postgres:
		return nil, errors.New(who + ": --db postgres takes a PostgreSQL URL (postgres://user:password@host:port/database), not a MySQL DSN")
	}
	if err := CheckLine(o.DSN); err != nil {
		return nil, fmt.Errorf(who+": %w", err)
	}
	// Every target connects as the URL says: pgx and lib/pq would use TLS where the
	// server offers it (lib/pq insists), PHP's DSN has it off, and the counting proxy
	// reads the wire. As on MySQL, a run goes without TLS, and the URL must say so.
	if u, _ := url.Parse(o.DSN); u.Query().Get("sslmode") != "disable" {
		return nil, fmt.Errorf(who+": %s: add sslmode=disable: every target connects without TLS, so that the drivers agree and the wire can be counted", dsn.RedactURL(o.DSN))
	}
	db := &DB{Kind: o.KindName(), Server: "postgres", conn: postgresConn{o.DSN}, Rows: o.Rows}
	pool, err := db.Open()
	if err != nil {
		return nil, fmt.Errorf(who+": %s: %s", db.Redacted(), secret.Scrub(err.Error()))
	}
	defer pool.Close()
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var max, reserved int
	q := "SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int, version()"
	if err := pool.QueryRowContext(pctx, q).Scan(&max, &reserved, &db.Version); err != nil {
		return nil, fmt.Errorf(who+": cannot reach %s: %s", db.Redacted(), secret.Scrub(err.Error()))
	}
	if max-reserved < o.MaxConnections {
		return nil, fmt.Errorf(who+": %s", say("max-connections-short-postgres",
			map[string]any{"Max": max, "Reserved": reserved, "Need": o.MaxConnections, "Total": o.MaxConnections + reserved}))
	}
	if err := preflightPostgres(ctx, pool); err != nil {
		return nil, fmt.Errorf(who+": %s: %w", db.Redacted(), err)
	}
	load := fixtures.LoadPostgres
	if o.ReplaceTable != "" {
		load = fixtures.LoadPostgresReplacing
	}
	t0 := time.Now()
	if err := load(ctx, pool, o.Rows); err != nil {
		return nil, fmt.Errorf(who+": %w", err)
	}
	if err := fixtures.VerifyPostgres(ctx, pool, o.Rows); err != nil {
		return nil, fmt.Errorf(who+": %w", err)
	}
	fmt.Fprintf(o.Log, "loaded %d users in %.2fs, fixtures verified\n", o.Rows, time.Since(t0).Seconds())
	return db, nil
}

// preflightPostgres creates, fills, reads and drops dbbench's scratch table (a table of
// that name that is not its own is refused), and names every right the server refused.
func preflightPostgres(ctx context.Context, pool *sql.DB) error {
	if err := createProbe(ctx, pool); err != nil {
		if code(err) == "42P07" { // it exists: ours from a run that died here?
			var comment sql.NullString
			if pool.QueryRowContext(ctx, "SELECT obj_description(to_regclass($1), 'pg_class')", probeTable).Scan(&comment) != nil || comment.String != probeComment {
				return &foreignProbe{probeTable}
			}
			if _, err := pool.ExecContext(ctx, "DROP TABLE "+probeTable); err != nil {
				return errors.New("the DSN's user lacks what a run needs: DROP on the database")
			}
			return preflightPostgres(ctx, pool)
		}
		if code(err) == "42501" {
			return errors.New("the DSN's user lacks what a run needs: CREATE on the database's schema (README.md, \"Providers\")")
		}
		return fmt.Errorf("preflight: %s", secret.Scrub(err.Error()))
	}
	// On a table it has just created, any failure is a right the user lacks.
	lacks, err := useProbe(ctx, pool, func(error) bool { return true })
	if err != nil {
		return err
	}
	if len(lacks) > 0 {
		return fmt.Errorf("the DSN's user lacks what a run needs: %v on its own table", lacks)
	}
	return nil
}

// createProbe creates the scratch table and marks it as dbbench's in one transaction,
// so that no run leaves an unmarked probe behind for the next to refuse.
func createProbe(ctx context.Context, pool *sql.DB) error {
	tx, err := pool.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // a no-op after Commit
	for _, q := range []string{
		"CREATE TABLE " + probeTable + " (id int PRIMARY KEY)",
		"COMMENT ON TABLE " + probeTable + " IS '" + probeComment + "'",
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// code is a PostgreSQL error's SQLSTATE, "" for another error.
func code(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}
