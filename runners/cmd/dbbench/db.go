package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"dbbench/fixtures"
	"dbbench/runners/provider"
)

// dbFlags are the provider flags `db up` and `run` share.
type dbFlags struct {
	provider string
	dsn      string
	rows     int
}

func (f *dbFlags) register(fs interface {
	StringVar(*string, string, string, string)
	IntVar(*int, string, int, string)
}) {
	fs.StringVar(&f.provider, "provider", "embedded", "database: "+strings.Join(provider.Kinds, ", "))
	fs.StringVar(&f.dsn, "dsn", "", "with --provider dsn: user:password@tcp(host:port)/database")
	fs.IntVar(&f.rows, "rows", fixtures.DefaultRows, "users to load (ids 1..rows)")
}

func (f *dbFlags) options(maxConnections int, log io.Writer) (provider.Options, error) {
	if f.rows < 1 {
		return provider.Options{}, fmt.Errorf("%w: --rows must be at least 1, got %d", errUsage, f.rows)
	}
	if f.dsn != "" && f.provider != "dsn" {
		return provider.Options{}, fmt.Errorf("%w: --dsn needs --provider dsn", errUsage)
	}
	return provider.Options{Kind: f.provider, DSN: f.dsn, Rows: f.rows, MaxConnections: maxConnections, Log: log}, nil
}

func dbUp(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("db up", stderr)
	var df dbFlags
	df.register(fs)
	dsnOut := fs.String("dsn-out", "", "write the full DSN (with password) to this file, mode 0600")
	maxConns := fs.Int("max-connections", 512, "connections the server must allow")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: db up: unexpected argument %q", errUsage, fs.Arg(0))
	}
	opts, err := df.options(*maxConns, stderr)
	if err != nil {
		return err
	}
	db, err := provider.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer db.Close()
	if *dsnOut != "" {
		if err := writeSecretFile(*dsnOut, db.DSN()+"\n"); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "database up: %s (%s %s, %d users)\n", db.Redacted(), db.Kind, db.Version, db.Rows)
	if *dsnOut != "" {
		fmt.Fprintf(stdout, "full DSN in %s (mode 0600)\n", *dsnOut)
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
