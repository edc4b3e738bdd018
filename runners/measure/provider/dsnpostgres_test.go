package provider

import (
	"cmp"
	"context"
	"errors"
	"io"
	"net/url"
	"strings"
	"testing"

	"dbbench/dsn/protocol"
	"dbbench/fixtures"
)

// The dsn provider on an existing PostgreSQL (an embedded one stands in for it): it
// loads and verifies dbbench's table, leaves a users table that is not dbbench's as it
// is (and replaces it only when asked), and names what the server or the user lacks,
// never the password.
func TestDSNProviderOnPostgres(t *testing.T) {
	ctx := context.Background()
	pg, err := StartPostgres(ctx, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	admin, err := pg.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	attach := func(o Options) (*DB, error) {
		o.Kind, o.Server, o.Log = "dsn", "postgres", io.Discard
		o.DSN = cmp.Or(o.DSN, pg.URL())
		return Start(ctx, o)
	}
	db, err := attach(Options{Rows: 30, MaxConnections: 20})
	if err != nil {
		t.Fatal(err)
	}
	if db.Kind != "dsn" || db.Protocol() != protocol.Postgres || db.PID != 0 || !strings.Contains(db.Version, "PostgreSQL") {
		t.Errorf("attached %+v, want a dsn PostgreSQL of no process of ours", db)
	}
	if err := fixtures.VerifyPostgres(ctx, admin, 30); err != nil {
		t.Errorf("after attaching: %v", err)
	}

	// A users table of someone else's: refused, and kept.
	for _, q := range []string{"DROP TABLE users", "CREATE TABLE users (id int, email text)", "INSERT INTO users VALUES (1, 'a@b')"} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	_, err = attach(Options{Rows: 30, MaxConnections: 20})
	var fe *fixtures.ForeignTableError
	if !errors.As(err, &fe) || fe.Rows != 1 {
		t.Fatalf("attach over a foreign users table: %v, want a ForeignTableError of 1 row", err)
	}
	var email string
	if err := admin.QueryRowContext(ctx, "SELECT email FROM users").Scan(&email); err != nil || email != "a@b" {
		t.Errorf("the foreign table after the refusal: %q, %v; want it untouched", email, err)
	}
	if _, err := attach(Options{Rows: 30, MaxConnections: 20, ReplaceTable: "users"}); err != nil {
		t.Errorf("--replace-table users: %v", err)
	}

	// What the server or the user lacks, named without the password.
	u, _ := url.Parse(pg.URL())
	pw, _ := u.User.Password()
	if _, err := attach(Options{Rows: 30, MaxConnections: 100000}); err == nil || !strings.Contains(err.Error(), "max_connections") {
		t.Errorf("a server short of connections: %v, want max_connections named", err)
	}
	for _, q := range []string{"CREATE ROLE reader LOGIN PASSWORD 'reader-pw'", "REVOKE CREATE ON SCHEMA public FROM PUBLIC"} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	reader := *u
	reader.User = url.UserPassword("reader", "reader-pw")
	_, err = attach(Options{Rows: 30, MaxConnections: 20, DSN: reader.String()})
	if err == nil || !strings.Contains(err.Error(), "CREATE on the database's schema") || strings.Contains(err.Error(), "reader-pw") || strings.Contains(err.Error(), pw) {
		t.Errorf("a user without CREATE: %v, want CREATE named and no password", err)
	}
	plain := *u
	plain.RawQuery = ""
	if _, err = attach(Options{Rows: 30, MaxConnections: 20, DSN: plain.String()}); err == nil || !strings.Contains(err.Error(), "add sslmode=disable") || strings.Contains(err.Error(), pw) {
		t.Errorf("a URL that leaves TLS to the drivers: %v, want sslmode=disable asked for", err)
	}
	bad := *u
	bad.User = url.UserPassword(u.User.Username(), "not-"+pw)
	if _, err = attach(Options{Rows: 30, MaxConnections: 20, DSN: bad.String()}); err == nil || strings.Contains(err.Error(), "not-"+pw) {
		t.Errorf("a wrong password: %v, want an error without it", err)
	}
}
