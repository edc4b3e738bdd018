package provider

import (
	"context"
	"database/sql"

	"dbbench/dsn/protocol"
)

// conn is how a server is reached, one per wire protocol (mysqlconn.go,
// postgresconn.go): its DSN with and without the password, its address, the driver that
// opens it, how its placeholders are written and which orders loader fills it. DB asks
// its conn and never branches on the protocol.
type conn interface {
	Protocol() protocol.Protocol
	DSN() string // with the password: write it only to a 0600 file
	Addr() string
	Redacted() string
	Open() (*sql.DB, error)
	// Rebind writes a query of the runner's own, with ? placeholders, as the server
	// takes it.
	Rebind(q string) string
	LoadOrders(ctx context.Context, db *sql.DB, rows, perUser int, replace bool) error
}
