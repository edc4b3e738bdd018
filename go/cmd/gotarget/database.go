package main

import (
	"cmp"
	"database/sql/driver"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"slices"
	"strings"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/lib/pq"

	"dbbench/dsn"
	"dbbench/dsn/protocol"
	"dbbench/go/config"
	"dbbench/go/layers"
	"dbbench/go/server"
)

// database is the server a variant reads, as gotarget reaches it: the driver's
// connector, its DSN with the password masked, and the mask for any text that may
// quote it (drivers' and ORMs' errors).
type database struct {
	connector driver.Connector
	redacted  string
	scrub     func(string) string
	postgres  bool // a PostgreSQL URL: the layer writes PostgreSQL's dialect
	// pgx is pgx's connection config behind the connector (nil for the other drivers),
	// from which a layer on pgx's own pool opens it (pool.go).
	pgx *pgx.ConnConfig
}

// connect reads the DSN file (removing it when asked to, before any connection is made:
// a start that fails leaves no copy of the password behind either) and builds the
// connector the variant asks for: go-sql-driver's for a MySQL DSN, pgx's for a
// PostgreSQL URL, each with the statement mode set as the variant says, whatever the
// file says.
func connect(c config.Config) (*database, error) {
	line, err := dsn.ReadLine(c.DSNFile)
	if c.RemoveDSNFile {
		if rerr := os.Remove(c.DSNFile); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			return nil, fmt.Errorf("remove DSN file: %w", rerr)
		}
	}
	if err != nil {
		return nil, err
	}
	p := protocol.Of(line)
	if err := checkProtocol(c, p); err != nil {
		return nil, err
	}
	pg := p == protocol.Postgres
	if pg && layers.All[c.Layer].Driver == "pq" {
		return libpq(line, c.Stmt)
	}
	if pg {
		return postgres(line, cmp.Or(c.Stmt, server.PgxModes[0])) // --ping names no mode
	}
	cfg, err := dsn.Parse(line)
	if err != nil {
		return nil, fmt.Errorf("DSN file %s: %w", c.DSNFile, err)
	}
	cfg.InterpolateParams = c.Stmt == "interpolate"
	scrub := func(s string) string { return dsn.MaskPassword(s, cfg.Passwd) }
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("DSN %s: %s", dsn.Redact(cfg), scrub(err.Error()))
	}
	return &database{connector: connector, redacted: dsn.Redact(cfg), scrub: scrub}, nil
}

// checkProtocol refuses a layer that does not read the DSN's protocol, or a mode the
// layer does not offer on it. --ping names no layer: the protocol's first driver pings.
func checkProtocol(c config.Config, p protocol.Protocol) error {
	if c.Ping > 0 {
		return nil
	}
	stmts := layers.All[c.Layer].Stmts[string(p)]
	if stmts == nil {
		return fmt.Errorf("layer %s does not read %s (the DSN file holds a %s)", c.Layer, map[bool]string{true: "PostgreSQL", false: "MySQL"}[p == protocol.Postgres], dsnKind(p))
	}
	if !slices.Contains(stmts, c.Stmt) {
		return fmt.Errorf("layer %s has no --stmt %s on a %s (want one of %s)", c.Layer, c.Stmt, dsnKind(p), strings.Join(stmts, ", "))
	}
	return nil
}

// dsnKind names what a DSN file of protocol p holds, for messages.
func dsnKind(p protocol.Protocol) string {
	if p == protocol.Postgres {
		return "PostgreSQL URL"
	}
	return "MySQL DSN"
}

// execModes are pgx's execution modes by the names of server.PgxModes.
var execModes = map[string]pgx.QueryExecMode{
	"cache_statement": pgx.QueryExecModeCacheStatement,
	"cache_describe":  pgx.QueryExecModeCacheDescribe,
	"describe_exec":   pgx.QueryExecModeDescribeExec,
	"exec":            pgx.QueryExecModeExec,
	"simple_protocol": pgx.QueryExecModeSimpleProtocol,
}

// postgres is pgx's database/sql connector for url, in the execution mode stmt.
func postgres(url, stmt string) (*database, error) {
	cc, err := pgx.ParseConfig(url)
	if err != nil { // pgx masks the password in its own message
		return nil, fmt.Errorf("malformed PostgreSQL URL %s: %w", dsn.RedactURL(url), err)
	}
	mode, ok := execModes[stmt]
	if !ok {
		return nil, fmt.Errorf("--stmt %q is no pgx execution mode", stmt)
	}
	cc.DefaultQueryExecMode = mode
	scrub := func(s string) string { return dsn.MaskURLPassword(s, cc.Password) }
	return &database{connector: stdlib.GetConnector(*cc), redacted: dsn.RedactURL(url), scrub: scrub, postgres: true, pgx: cc}, nil
}

// libpq is lib/pq's connector for url, with binary_parameters=yes when stmt says so
// (layer pq's Stmts, layers.go) and lib/pq's default otherwise, whatever the URL says.
func libpq(url, stmt string) (*database, error) {
	u, err := neturl.Parse(url)
	if err != nil {
		return nil, fmt.Errorf("malformed PostgreSQL URL %s", dsn.RedactURL(url))
	}
	q := u.Query()
	switch stmt {
	case "binary_parameters":
		q.Set("binary_parameters", "yes")
	case "prepare":
		q.Del("binary_parameters")
	default:
		return nil, fmt.Errorf("--stmt %q is no lib/pq mode", stmt)
	}
	u.RawQuery = q.Encode()
	password, _ := u.User.Password()
	scrub := func(s string) string { return dsn.MaskURLPassword(s, password) }
	connector, err := pq.NewConnector(u.String())
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL URL %s: %s", dsn.RedactURL(url), scrub(err.Error()))
	}
	return &database{connector: connector, redacted: dsn.RedactURL(url), scrub: scrub, postgres: true}, nil
}
