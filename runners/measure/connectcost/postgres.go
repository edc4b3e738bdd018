package connectcost

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"

	"dbbench/dsn/protocol"
	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/provider"
	"dbbench/runners/measure/secret"
)

// postgresDoor is PostgreSQL's: the benchmark role's SCRAM-SHA-256, and md5 as a
// role made for it with an md5 password (the embedded cluster lets provider.MD5Role in
// by md5, runners/measure/provider/postgres.go), each with and without TLS where the server has
// it. Every connection forks a backend: the server's CPU is the postmaster's tree's,
// with the backends that exited meanwhile.
type postgresDoor struct {
	admin       *sql.DB
	url         *url.URL
	pid         int
	md5Password string // of provider.MD5Role, made by ways; "" before
}

func newPostgresDoor(o Options) (*postgresDoor, error) {
	u, err := url.Parse(o.DSN)
	if err != nil {
		return nil, fmt.Errorf("malformed PostgreSQL URL")
	}
	return &postgresDoor{admin: o.Admin, url: u, pid: o.PID}, nil
}

func (d *postgresDoor) upstream() string { return d.url.Host }

// ways: SCRAM-SHA-256 always (the benchmark role's), md5 when the role made for it can
// log in; each over TLS too when ssl is on.
func (d *postgresDoor) ways(ctx context.Context) ([]way, error) {
	var ssl string
	if err := d.admin.QueryRowContext(ctx, "SHOW ssl").Scan(&ssl); err != nil {
		return nil, fmt.Errorf("connectcost: does the server have TLS: %w", err)
	}
	md5, err := d.makeMD5Role(ctx)
	if err != nil {
		return nil, err
	}
	var ways []way
	for _, onTLS := range []bool{false, true} {
		if onTLS && ssl != "on" {
			continue
		}
		ways = append(ways, way{path: protocol.PathSCRAM, tls: onTLS})
		if md5 {
			ways = append(ways, way{path: protocol.PathMD5, tls: onTLS})
		}
	}
	return ways, nil
}

// makeMD5Role makes provider.MD5Role with an md5-hashed password and says whether it can log in
// (the server's pg_hba.conf decides: only the embedded cluster's lets it in by md5).
func (d *postgresDoor) makeMD5Role(ctx context.Context) (bool, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return false, err
	}
	password := "Cc-" + hex.EncodeToString(b)
	secret.Register(password)
	c, err := d.admin.Conn(ctx)
	if err != nil {
		return false, fmt.Errorf("connectcost: %w", err)
	}
	defer c.Close()
	// password_encryption is the session's: the role's password is stored as an md5
	// hash, which is what makes its login the md5 exchange.
	for _, q := range []string{"SET password_encryption = 'md5'",
		"DROP ROLE IF EXISTS " + provider.MD5Role,
		"CREATE ROLE " + provider.MD5Role + " LOGIN PASSWORD '" + password + "'",
		"RESET password_encryption"} {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return false, fmt.Errorf("connectcost: make the md5 role: %w", err)
		}
	}
	d.md5Password = password
	conn, err := pgx.Connect(ctx, d.connString(way{path: protocol.PathMD5}, d.url.Host))
	if err != nil {
		return false, nil // this server's pg_hba.conf does not let it in by md5
	}
	conn.Close(ctx)
	return true, nil
}

// connString is a URL for a connection on w to addr.
func (d *postgresDoor) connString(w way, addr string) string {
	u := *d.url
	u.Host = addr
	if w.path == protocol.PathMD5 {
		u.User = url.UserPassword(provider.MD5Role, d.md5Password)
	}
	q := u.Query()
	q.Set("sslmode", "disable")
	if w.tls {
		q.Set("sslmode", "require") // the server's own certificate, made for the run
	}
	u.RawQuery = q.Encode()
	return u.String()
}

func (d *postgresDoor) dialers(_ context.Context, w way, n int, addr string) ([]func(context.Context) (io.Closer, error), error) {
	cfg, err := pgx.ParseConfig(d.connString(w, addr))
	if err != nil {
		return nil, fmt.Errorf("connectcost: %s", secret.Scrub(err.Error()))
	}
	out := make([]func(context.Context) (io.Closer, error), n)
	for i := range out {
		out[i] = func(ctx context.Context) (io.Closer, error) {
			c, err := pgx.ConnectConfig(ctx, cfg.Copy())
			if err != nil {
				return nil, err
			}
			return closer{c}, nil
		}
	}
	return out, nil
}

// closer closes a pgx connection (Terminate) as io.Closer.
type closer struct{ c *pgx.Conn }

func (c closer) Close() error { return c.c.Close(context.Background()) }

// cpuFrom counts the CPU of the postmaster and every backend, those that exited
// meanwhile included (its children's times): procstat.TakeCPUFamily, as the run reads
// the server (runners/measure/servers/postgres.go).
func (d *postgresDoor) cpuFrom() (func() (time.Duration, error), error) {
	before, err := procstat.TakeCPUFamily(d.pid)
	if err != nil {
		return nil, err
	}
	return func() (time.Duration, error) {
		after, err := procstat.TakeCPUFamily(d.pid)
		if err != nil {
			return 0, err
		}
		return after - before, nil
	}, nil
}

func (d *postgresDoor) drop(ctx context.Context) error {
	if d.md5Password == "" {
		return nil
	}
	if _, err := d.admin.ExecContext(ctx, "DROP ROLE IF EXISTS "+provider.MD5Role); err != nil {
		return fmt.Errorf("connectcost: drop %s: %w", provider.MD5Role, err)
	}
	return nil
}
