package provider

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strings"

	"dbbench/dsn"
	"dbbench/dsn/protocol"
	"dbbench/fixtures"
)

// postgresConn reaches a PostgreSQL server (or PgBouncer in front of one) by its
// connection URL, password included.
type postgresConn struct{ url string }

func (c postgresConn) Protocol() protocol.Protocol { return protocol.Postgres }
func (c postgresConn) DSN() string                 { return c.url }
func (c postgresConn) Redacted() string            { return dsn.RedactURL(c.url) }
func (c postgresConn) Open() (*sql.DB, error)      { return sql.Open("pgx", c.url) }

func (c postgresConn) Addr() string {
	u, err := url.Parse(c.url)
	if err != nil {
		return ""
	}
	return u.Host
}

// Rebind numbers the placeholders ($1, $2, …), as PostgreSQL takes them. The runner's
// queries hold no ? in a string literal.
func (c postgresConn) Rebind(q string) string {
	var b strings.Builder
	n := 0
	for _, r := range q {
		if r == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (c postgresConn) LoadOrders(ctx context.Context, db *sql.DB, rows, perUser int, replace bool) error {
	return fixtures.LoadOrdersPostgres(ctx, db, rows, perUser, replace)
}
