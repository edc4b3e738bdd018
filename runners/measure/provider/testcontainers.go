package provider

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/testcontainers/testcontainers-go"
	tcmysql "github.com/testcontainers/testcontainers-go/modules/mysql"

	"dbbench/runners/measure/secret"
)

// ContainerImage is the server the testcontainers provider runs.
const ContainerImage = "mysql:8.4"

// startContainer runs MySQL 8.4 in Docker. It needs a Docker engine; the error says so
// when none answers.
func startContainer(ctx context.Context, o Options) (*DB, error) {
	if err := DockerHealth(ctx); err != nil {
		return nil, fmt.Errorf("testcontainers provider: %w", err)
	}
	password := newPassword()
	secret.Register(password)
	c, err := tcmysql.Run(ctx, ContainerImage,
		tcmysql.WithDatabase("dbbench"),
		tcmysql.WithUsername("dbbench"),
		tcmysql.WithPassword(password),
		testcontainers.WithCmdArgs(ContainerArgs(o.MaxConnections)...),
	)
	if err != nil {
		if c != nil {
			testcontainers.TerminateContainer(c)
		}
		return nil, fmt.Errorf("testcontainers provider: start %s (is a Docker engine running?): %s", ContainerImage, secret.Scrub(err.Error()))
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
