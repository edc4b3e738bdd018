package provider

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/go-sql-driver/mysql"

	"dbbench/dsn"
	"dbbench/dsn/protocol"
	"dbbench/fixtures"
)

// mysqlConn reaches a server on MySQL's protocol (MariaDB, MySQL) by a go-sql-driver
// config, password included.
type mysqlConn struct{ cfg *mysql.Config }

func (c mysqlConn) Protocol() protocol.Protocol { return protocol.MySQL }
func (c mysqlConn) DSN() string                 { return c.cfg.FormatDSN() }
func (c mysqlConn) Addr() string                { return c.cfg.Addr }
func (c mysqlConn) Redacted() string            { return dsn.Redact(c.cfg) }
func (c mysqlConn) Rebind(q string) string      { return q }

func (c mysqlConn) Open() (*sql.DB, error) {
	cn, err := mysql.NewConnector(c.cfg)
	if err != nil {
		return nil, fmt.Errorf("provider: %w", err)
	}
	return sql.OpenDB(cn), nil
}

func (c mysqlConn) LoadOrders(ctx context.Context, db *sql.DB, rows, perUser int, replace bool) error {
	return fixtures.LoadOrders(ctx, db, rows, perUser, replace)
}
