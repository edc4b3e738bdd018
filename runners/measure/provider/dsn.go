package provider

import (
	"context"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"dbbench/dsn"
	"dbbench/runners/measure/secret"
)

// ParseDSN parses a go-sql-driver DSN (dsn.Parse) and registers its password as a
// secret, before parsing: a malformed DSN's error must not show it either.
func ParseDSN(line string) (*mysql.Config, error) {
	secret.RegisterDSN(line)
	cfg, err := dsn.Parse(line)
	if err != nil {
		return nil, err
	}
	secret.Register(cfg.Passwd)
	return cfg, nil
}

// CheckLine checks a connection line of either protocol (dsn.Check) and registers its
// password with secret first, so that nothing printed afterwards shows it. Its errors
// never contain the password.
func CheckLine(line string) error {
	secret.RegisterDSN(line)
	return dsn.Check(line)
}

// attachDSN connects to an existing server. It changes nothing there but dbbench's own
// users table (replaced by the loader, which refuses a table that is not dbbench's), and
// refuses a server that cannot hold the run's connections or does not grant what the
// run needs (preflight).
func attachDSN(ctx context.Context, o Options) (*DB, error) {
	if o.DSN == "" {
		return nil, fmt.Errorf("dsn provider: no DSN given (--dsn user:password@tcp(host:port)/database)")
	}
	cfg, err := ParseDSN(o.DSN)
	if err != nil {
		return nil, fmt.Errorf("dsn provider: %w", err)
	}
	db := &DB{Kind: "dsn", conn: mysqlConn{cfg}}
	if err := checkServer(ctx, db, o.MaxConnections); err != nil {
		return nil, err
	}
	pool, err := db.Open()
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	if err := preflight(ctx, pool); err != nil {
		return nil, fmt.Errorf("dsn provider: %s: %w", db.Redacted(), err)
	}
	return db, nil
}

// checkServer connects and compares max_connections with what the run needs.
func checkServer(ctx context.Context, db *DB, need int) error {
	pool, err := db.Open()
	if err != nil {
		return err
	}
	defer pool.Close()
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var max int
	if err := pool.QueryRowContext(pctx, "SELECT @@max_connections").Scan(&max); err != nil {
		return fmt.Errorf("%s provider: cannot reach %s: %s", db.Kind, db.Redacted(), secret.Scrub(err.Error()))
	}
	if max < need {
		return fmt.Errorf("%s provider: %s", db.Kind, say("max-connections-short", map[string]any{"Max": max, "Need": need}))
	}
	return nil
}
