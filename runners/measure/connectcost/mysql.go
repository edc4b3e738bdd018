package connectcost

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/go-sql-driver/mysql"

	"dbbench/dsn/protocol"
	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/secret"
)

// mysqlDoor is MariaDB's and MySQL's: the benchmark user's plugin, and for
// caching_sha2_password's full path a user the server has not seen, made for each
// connection beforehand and dropped at the end.
type mysqlDoor struct {
	admin *sql.DB
	cfg   *mysql.Config
	pid   int
	users []string
}

func newMySQLDoor(o Options) (*mysqlDoor, error) {
	cfg, err := mysql.ParseDSN(o.DSN)
	if err != nil {
		return nil, err
	}
	return &mysqlDoor{admin: o.Admin, cfg: cfg, pid: o.PID}, nil
}

func (d *mysqlDoor) upstream() string { return d.cfg.Addr }

// ways lists the paths the benchmark user's plugin has, each without and (where the
// server has TLS) with it.
func (d *mysqlDoor) ways(ctx context.Context) ([]way, error) {
	var plugin, tls string
	err := d.admin.QueryRowContext(ctx, "SELECT plugin FROM mysql.user WHERE user = SUBSTRING_INDEX(CURRENT_USER(), '@', 1) LIMIT 1").Scan(&plugin)
	if err != nil {
		return nil, fmt.Errorf("connectcost: the benchmark user's authentication plugin: %w", err)
	}
	if err := d.admin.QueryRowContext(ctx, "SELECT @@have_ssl").Scan(&tls); err != nil {
		return nil, fmt.Errorf("connectcost: does the server have TLS: %w", err)
	}
	var ways []way
	for _, onTLS := range []bool{false, true} {
		if onTLS && tls != "YES" {
			continue
		}
		if plugin != "caching_sha2_password" {
			ways = append(ways, way{path: plugin, tls: onTLS})
			continue
		}
		full := protocol.PathFullRSA
		if onTLS {
			full = protocol.PathFull // the password goes over TLS, no RSA key
		}
		ways = append(ways, way{path: protocol.PathCached, tls: onTLS}, way{path: full, tls: onTLS, full: true})
	}
	return ways, nil
}

func (d *mysqlDoor) dialers(ctx context.Context, w way, n int, addr string) ([]func(context.Context) (io.Closer, error), error) {
	out := make([]func(context.Context) (io.Closer, error), n)
	for i := range out {
		c := d.cfg.Clone()
		c.Addr, c.DBName = addr, ""
		if w.tls {
			c.TLSConfig = "skip-verify" // the server's own certificate, made for the run
		}
		if w.full {
			var err error
			if c.User, c.Passwd, err = d.newUser(ctx); err != nil {
				return nil, err
			}
		}
		conn, err := mysql.NewConnector(c)
		if err != nil {
			return nil, err
		}
		out[i] = func(ctx context.Context) (io.Closer, error) { return conn.Connect(ctx) }
	}
	return out, nil
}

// cpuFrom counts mysqld's (mariadbd's) run time: one process, its threads' scheduler
// time, a thread that exited meanwhile adding nothing.
func (d *mysqlDoor) cpuFrom() (func() (time.Duration, error), error) {
	before, err := procstat.TakeCounts(d.pid)
	if err != nil {
		return nil, err
	}
	return func() (time.Duration, error) {
		after, err := procstat.TakeCounts(d.pid)
		if err != nil {
			return 0, err
		}
		return after.Sub(before).Run, nil
	}, nil
}

// newUser makes a user the server has never authenticated.
func (d *mysqlDoor) newUser(ctx context.Context) (user, password string, err error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	user, password = fmt.Sprintf("dbbench_cc_%d", len(d.users)), "Cc-"+hex.EncodeToString(b)
	secret.Register(password)
	if _, err := d.admin.ExecContext(ctx, "CREATE USER '"+user+"'@'%' IDENTIFIED BY '"+password+"'"); err != nil {
		return "", "", fmt.Errorf("connectcost: create a user for the full path: %w", err)
	}
	d.users = append(d.users, user)
	return user, password, nil
}

func (d *mysqlDoor) drop(ctx context.Context) error {
	for _, u := range d.users {
		if _, err := d.admin.ExecContext(ctx, "DROP USER IF EXISTS '"+u+"'@'%'"); err != nil {
			return fmt.Errorf("connectcost: drop %s: %w", u, err)
		}
	}
	return nil
}
