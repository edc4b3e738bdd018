package provider

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcmysql "github.com/testcontainers/testcontainers-go/modules/mysql"
	tcpostgres "github.com/testcontainers/testcontainers-go/modules/postgres"

	"dbbench/runners/measure/secret"
)

// ContainerImage is the server the testcontainers provider runs; PostgresImage the one
// it runs for --db postgres, the embedded server's major version.
const (
	ContainerImage = "mysql:8.4"
	PostgresImage  = "postgres:15"
)

// startContainer runs MySQL 8.4 in Docker. It needs a Docker engine; the error says so
// when none answers.
func startContainer(ctx context.Context, o Options) (*DB, error) {
	c, err := runContainer(ctx, ContainerImage, func(password string) (*tcmysql.MySQLContainer, error) {
		return tcmysql.Run(ctx, ContainerImage,
			tcmysql.WithDatabase("dbbench"),
			tcmysql.WithUsername("dbbench"),
			tcmysql.WithPassword(password),
			testcontainers.WithCmdArgs(ContainerArgs(o.MaxConnections)...),
		)
	})
	if err != nil {
		return nil, err
	}
	dsn, err := c.ConnectionString(ctx)
	if err != nil {
		testcontainers.TerminateContainer(c)
		return nil, fmt.Errorf("testcontainers provider: %s", secret.Scrub(err.Error()))
	}
	cfg, err := ParseDSN(dsn)
	if err != nil {
		testcontainers.TerminateContainer(c)
		return nil, fmt.Errorf("testcontainers provider: %w", err)
	}
	return &DB{
		Kind:  "testcontainers",
		conn:  mysqlConn{cfg},
		close: func() error { return testcontainers.TerminateContainer(c) },
	}, nil
}

// startPostgresContainer runs PostgreSQL 15 in Docker and attaches to it as the dsn
// provider attaches to a server (attachPostgres: its checks, the fixtures, their
// checksum); a pooler goes in front of the embedded server only.
func startPostgresContainer(ctx context.Context, o Options) (*DB, error) {
	if o.Pooler != "" {
		return nil, fmt.Errorf("--pooler %s: the pooler goes in front of the embedded PostgreSQL, not a container", o.Pooler)
	}
	c, err := runContainer(ctx, PostgresImage, func(password string) (*tcpostgres.PostgresContainer, error) {
		return tcpostgres.Run(ctx, PostgresImage,
			tcpostgres.WithDatabase("dbbench"),
			tcpostgres.WithUsername("dbbench"),
			tcpostgres.WithPassword(password),
			testcontainers.WithCmdArgs(PostgresContainerArgs(o.MaxConnections)...),
			tcpostgres.BasicWaitStrategies(),
		)
	})
	if err != nil {
		return nil, err
	}
	if o.DSN, err = c.ConnectionString(ctx, "sslmode=disable"); err != nil {
		testcontainers.TerminateContainer(c)
		return nil, fmt.Errorf("testcontainers provider: %s", secret.Scrub(err.Error()))
	}
	db, err := attachPostgres(ctx, o)
	if err != nil {
		testcontainers.TerminateContainer(c)
		return nil, err
	}
	db.close = func() error { return testcontainers.TerminateContainer(c) }
	return db, nil
}

// PostgresContainerArgs are the postgres options the container gets, after the image's
// own: the run's connections, pg_stat_statements for the server's count of statements,
// and fsync back on, which the module turns off, so that a commit costs what it costs on
// the embedded server. max_connections counts the superusers' reserved ones too, which
// attachPostgres leaves out of what the run may use.
func PostgresContainerArgs(maxConnections int) []string {
	return []string{"-c", "fsync=on", "-c", "superuser_reserved_connections=" + strconv.Itoa(superuserReserved),
		"-c", "max_connections=" + strconv.Itoa(maxConnections+superuserReserved),
		"-c", "shared_preload_libraries=pg_stat_statements"}
}

// superuserReserved is PostgreSQL 15's default superuser_reserved_connections, set
// explicitly so that the sum above holds.
const superuserReserved = 3

// runContainer starts image by run, with a new password (a secret from then on), once a
// Docker engine answers; a container that failed to start is removed again.
func runContainer[C testcontainers.Container](ctx context.Context, image string, run func(password string) (C, error)) (C, error) {
	if err := DockerHealth(ctx); err != nil {
		var none C
		return none, fmt.Errorf("testcontainers provider: %w", err)
	}
	password := newPassword()
	secret.Register(password)
	c, err := run(password)
	if err != nil {
		testcontainers.TerminateContainer(c) // nil-safe
		return c, fmt.Errorf("testcontainers provider: start %s (is a Docker engine running?): %s", image, secret.Scrub(err.Error()))
	}
	return c, nil
}

// ContainerArgs are the mysqld options the container gets: the embedded server's
// benchmark settings that MySQL 8.4 shares.
func ContainerArgs(maxConnections int) []string {
	return []string{
		"--max-connections=" + strconv.Itoa(maxConnections),
		"--max-prepared-stmt-count=1048576",
		"--innodb-buffer-pool-size=256M",
		"--skip-name-resolve",
		"--performance-schema=OFF",
		"--disable-log-bin",
	}
}

// DockerHealth says whether a Docker engine answers, without starting anything, so a
// missing engine is one clear error rather than a failure deep in a container start.
func DockerHealth(ctx context.Context) (err error) {
	defer func() {
		// testcontainers panics on some broken Docker setups: that is "no engine" too.
		if r := recover(); r != nil {
			err = fmt.Errorf("no Docker engine answers: %v", r)
		}
	}()
	p, err := testcontainers.ProviderDocker.GetProvider()
	if err != nil {
		return fmt.Errorf("no Docker engine answers: %s", secret.Scrub(err.Error()))
	}
	defer p.Close()
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.Health(hctx); err != nil {
		return fmt.Errorf("no Docker engine answers: %s", secret.Scrub(err.Error()))
	}
	return nil
}
