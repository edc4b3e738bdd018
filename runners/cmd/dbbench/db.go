package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"dbbench/fixtures"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/secret"
	"dbbench/schema"
)

// dsnEnv is the environment variable a DSN may come from, so that its password is in
// neither the command line (ps) nor the shell's history.
const dsnEnv = "DBBENCH_DSN"

// dbFlags are the provider flags every command that starts a database shares.
type dbFlags struct {
	provider, server, dsn, dsnFile, replace, pooler     *string
	pgbouncer                                           *string
	rows, orders, poolerSize, maxPrepared, maxStmtCount *int
	perfSchema                                          *bool
	several                                             bool // the command takes a list of --db servers
	fs                                                  *flagSet
}

func (f *dbFlags) register(fs *flagSet) {
	f.fs = fs
	f.provider = fs.String("provider", "embedded", oneOf(provider.Kinds...), "database")
	f.server = fs.String("db", provider.Servers[0], listOf(provider.Servers...), "database server: "+strings.Join(provider.Servers, " or ")+" (run and ab take a list, mariadb,mysql, and measure both side by side)")
	f.dsn = fs.String("dsn", "", anything, "with --provider dsn: user:password@tcp(host:port)/database (the password shows in ps; prefer --dsn-file or "+dsnEnv+")")
	f.dsnFile = fs.String("dsn-file", "", anything, "with --provider dsn: a file holding the DSN on one line (mode 0600); else $"+dsnEnv)
	f.replace = fs.String("replace-table", "", oneOf("", schema.Table, schema.OrdersTable), "with --provider dsn: replace the users (or orders) table even though it is not dbbench's (it is dropped)")
	f.rows = fs.Int("rows", fixtures.DefaultRows, atLeast(1), "users to load (ids 1..rows)")
	f.orders = fs.Int("orders-per-user", 0, atLeast(0), fmt.Sprintf("orders to load per user, the related rows of the orders ops (1..%d); 0: %d when a variant's op reads them, else none", fixtures.MaxOrdersPerUser, fixtures.DefaultOrdersPerUser))
	f.perfSchema = fs.Bool("perf-schema", false, say("flag-perf-schema", nil))
	f.pooler = fs.String("pooler", "", oneOf("", "pgbouncer"), "with --db postgres: put a transaction pooler between the targets and the server (pgbouncer: PgBouncer, pool_mode = transaction)")
	f.poolerSize = fs.Int("pooler-size", 20, atLeast(1), "with --pooler or --db pgbouncer: the pooler's server connections (PgBouncer's default_pool_size)")
	f.pgbouncer = fs.String("pgbouncer-version", provider.DefaultPgBouncer, oneOf(provider.PgBouncerVersionNames()...), "with --pooler or --db pgbouncer: 1.24 (Debian 13's, built by make deps DB=pgbouncer: prepared statements in transaction mode) or 1.18 (Debian 12's and Ubuntu 22.04's: none)")
	f.maxPrepared = fs.Int("max-prepared-statements", -1, atLeast(-1), "with PgBouncer 1.24: its max_prepared_statements, 0 off (-1: the version's default, 200)")
	f.maxStmtCount = fs.Int("max-prepared-stmt-count", 0, atLeast(0), "an embedded MariaDB's or MySQL's max_prepared_stmt_count, the server's prepared statements across every connection (0: the suite's 1048576, which a run never reaches; the servers ship 16382)")
}

// servers are the --db list, in the order given.
func (f *dbFlags) servers() []string {
	var out []string
	for _, s := range strings.Split(*f.server, ",") {
		out = append(out, strings.TrimSpace(s))
	}
	return out
}

// poolerFlagsUsed refuses --pgbouncer-version and --max-prepared-statements where no
// server they set is measured: without --pooler or --db pgbouncer they would be
// silently unused (pgbouncer-118 and pgbouncer-off fix their own).
func (f *dbFlags) poolerFlagsUsed(servers []string) error {
	if *f.pooler != "" || slices.ContainsFunc(servers, provider.PoolerSettable) {
		return nil
	}
	for _, flag := range []string{"pgbouncer-version", "max-prepared-statements"} {
		if f.fs.given(flag) {
			return fmt.Errorf("%w: --%s sets the PgBouncer of --db pgbouncer or --pooler pgbouncer; --db %s has none to set (pgbouncer-118 and pgbouncer-off fix theirs)", errUsage, flag, strings.Join(servers, ","))
		}
	}
	return nil
}

// options resolves the provider options: the DSN from --dsn, --dsn-file or $DBBENCH_DSN
// (one of them, with --provider dsn only), with a warning when the password is on the
// command line.
func (f *dbFlags) options(maxConnections int, log io.Writer) (provider.Options, error) {
	o := provider.Options{Kind: *f.provider, Rows: *f.rows, MaxConnections: maxConnections, Log: log, ReplaceTable: *f.replace, PerfSchema: *f.perfSchema,
		OrdersPerUser: *f.orders}
	if *f.orders > fixtures.MaxOrdersPerUser {
		return o, fmt.Errorf("%w: --orders-per-user %d: at most %d", errUsage, *f.orders, fixtures.MaxOrdersPerUser)
	}
	servers := f.servers()
	if len(servers) > 1 && !f.several {
		return o, fmt.Errorf("%w: --db %s: this command measures one server; run and ab measure several side by side", errUsage, *f.server)
	}
	o.Server, o.PoolerSize = servers[0], *f.poolerSize
	if err := f.poolerFlagsUsed(servers); err != nil {
		return o, err
	}
	o.PgBouncer.Version = *f.pgbouncer
	if *f.maxPrepared >= 0 {
		n := *f.maxPrepared
		o.PgBouncer.MaxPreparedStatements = &n
		if err := o.PgBouncer.Check(); err != nil {
			return o, fmt.Errorf("%w: --max-prepared-statements %d: %v", errUsage, n, err)
		}
	}
	if n := *f.maxStmtCount; n > 0 {
		for _, s := range servers {
			if slices.Contains(provider.Servers, s) && !provider.TakesServerArgs(s) { // an unknown one is refused where it starts
				return o, fmt.Errorf("%w: --max-prepared-stmt-count %d is MariaDB's and MySQL's setting; --db %s has no such limit", errUsage, n, s)
			}
		}
		o.ServerArgs = append(o.ServerArgs, fmt.Sprintf("--max-prepared-stmt-count=%d", n))
	}
	if *f.pooler != "" {
		if len(servers) > 1 || !provider.TakesPooler(o.Server) {
			return o, fmt.Errorf("%w: --pooler %s sits in front of PostgreSQL: it needs --db postgres alone (or --db postgres,pgbouncer to pair the two)", errUsage, *f.pooler)
		}
		o.Pooler = *f.pooler
	}
	if root, err := repoRoot(); err == nil {
		o.MySQLDir = filepath.Join(root, "bin", "mysql")
	}
	if *f.provider != "dsn" {
		for flag, v := range map[string]string{"--dsn": *f.dsn, "--dsn-file": *f.dsnFile, "--replace-table": *f.replace} {
			if v != "" {
				return o, fmt.Errorf("%w: %s needs --provider dsn", errUsage, flag)
			}
		}
		return o, nil
	}
	switch {
	case *f.dsn != "" && *f.dsnFile != "":
		return o, fmt.Errorf("%w: give the DSN once: --dsn or --dsn-file", errUsage)
	case *f.dsn != "":
		o.DSN = *f.dsn
		secret.RegisterDSN(o.DSN)
		if secret.PasswordOf(o.DSN) != "" {
			fmt.Fprintf(log, "warning: the password in --dsn shows in ps and in the shell's history; use --dsn-file FILE or %s\n", dsnEnv)
		}
	case *f.dsnFile != "":
		b, err := os.ReadFile(*f.dsnFile)
		if err != nil {
			return o, fmt.Errorf("%w: --dsn-file: %v", errUsage, err)
		}
		o.DSN = strings.TrimSpace(string(b))
	default:
		o.DSN = strings.TrimSpace(os.Getenv(dsnEnv))
		if o.DSN == "" {
			return o, fmt.Errorf("%w: --provider dsn needs the DSN: --dsn-file FILE, $%s, or --dsn", errUsage, dsnEnv)
		}
	}
	secret.RegisterDSN(o.DSN)
	return o, nil
}

// dbUpConfig is `dbbench db up`.
type dbUpConfig struct {
	db     provider.Options
	dsnOut string
}

func parseDBUp(fs *flagSet, args []string) (action, error) {
	var df dbFlags
	df.register(fs)
	dsnOut := fs.String("dsn-out", "", anything, "write the full DSN (with password) to this file, mode 0600")
	maxConns := fs.Int("max-connections", 512, atLeast(1), "connections the server must allow")
	if err := fs.parse(args); err != nil {
		return nil, err
	}
	if err := fs.noArgs(); err != nil {
		return nil, err
	}
	var c dbUpConfig
	var err error
	if c.db, err = df.options(*maxConns, fs.out); err != nil {
		return nil, err
	}
	c.dsnOut = *dsnOut
	return c.run, nil
}

func (c dbUpConfig) run(ctx context.Context, stdout, stderr io.Writer) error {
	c.db.Log = stderr
	db, err := provider.Start(ctx, c.db)
	if err != nil {
		return err
	}
	defer db.Close()
	if c.dsnOut != "" {
		if err := writeSecretFile(c.dsnOut, db.DSN()+"\n"); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "database up: %s (%s %s, %d users)\n", db.Redacted(), db.Kind, db.Version, db.Rows)
	if c.dsnOut != "" {
		fmt.Fprintf(stdout, "full DSN in %s (mode 0600)\n", c.dsnOut)
	}
	fmt.Fprintln(stdout, "press Ctrl-C to stop")
	<-ctx.Done()
	fmt.Fprintln(stderr, "stopping the database")
	return db.Close()
}

// writeSecretFile writes s to path with mode 0600, replacing any file there.
func writeSecretFile(path, s string) error {
	os.Remove(path) // an existing file would keep its old, possibly wider, mode
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write DSN file: %w", err)
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return fmt.Errorf("write DSN file: %w", err)
	}
	return f.Close()
}
