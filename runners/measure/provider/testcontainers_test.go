package provider

import (
	"context"
	"slices"
	"strings"
	"testing"

	"dbbench/fixtures"
)

func TestContainerArgsCarryTheRunsNeeds(t *testing.T) {
	args := ContainerArgs(300)
	for _, want := range []string{"--max-connections=300", "--max-prepared-stmt-count=1048576", "--skip-name-resolve"} {
		if !slices.Contains(args, want) {
			t.Errorf("ContainerArgs(300) = %v, lacks %s", args, want)
		}
	}
}

// The real thing, where Docker runs: MySQL 8.4 comes up, takes the fixtures and the
// checksum passes. Here (no Docker engine) it skips and says why.
func TestTestcontainersMySQL(t *testing.T) {
	ctx := context.Background()
	if err := DockerHealth(ctx); err != nil {
		t.Skipf("testcontainers provider integration test needs a Docker engine: %v", err)
	}
	db, err := Start(ctx, Options{Kind: "testcontainers", Rows: 1000, MaxConnections: 200, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !strings.HasPrefix(db.Version, "8.4") {
		t.Errorf("server version %q, want MySQL 8.4", db.Version)
	}
	pool, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := fixtures.Verify(ctx, pool, 1000); err != nil {
		t.Fatal(err)
	}
}

// Without an engine, Start fails with one clear line, not a panic or a hang.
func TestTestcontainersWithoutDockerSaysSo(t *testing.T) {
	ctx := context.Background()
	if DockerHealth(ctx) == nil {
		t.Skip("a Docker engine answers here; this test is for hosts without one")
	}
	_, err := Start(ctx, Options{Kind: "testcontainers", Rows: 10, Log: testLog{t}})
	if err == nil || !strings.Contains(err.Error(), "no Docker engine answers") {
		t.Fatalf("Start without Docker = %v, want 'no Docker engine answers'", err)
	}
}

// The PostgreSQL container runs as the embedded server does: the run's 300 connections
// usable beside the superusers' 3 reserved ones (attachPostgres refuses fewer),
// pg_stat_statements for the server's own count, and fsync on, which the module's image
// command turns off (a later -c wins).
func TestPostgresContainerArgsMatchTheEmbeddedServer(t *testing.T) {
	args := strings.Join(PostgresContainerArgs(300), " ")
	for _, want := range []string{"-c max_connections=303", "-c superuser_reserved_connections=3", "-c shared_preload_libraries=pg_stat_statements", "-c fsync=on"} {
		if !strings.Contains(args, want) {
			t.Errorf("PostgresContainerArgs(300) = %s, lacks %s", args, want)
		}
	}
}

// The real thing, where Docker runs: PostgreSQL 15 comes up, takes the fixtures through
// the dsn provider's checks, and the checksum passes. Here (no Docker engine) it skips
// and says why.
func TestTestcontainersPostgres(t *testing.T) {
	ctx := context.Background()
	if err := DockerHealth(ctx); err != nil {
		t.Skipf("testcontainers provider integration test needs a Docker engine: %v", err)
	}
	db, err := Start(ctx, Options{Kind: "testcontainers", Server: "postgres", Rows: 1000, MaxConnections: 200, Log: testLog{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !strings.Contains(db.Version, "PostgreSQL 15") || db.Kind != "testcontainers" {
		t.Errorf("server %q, kind %q; want PostgreSQL 15 from testcontainers", db.Version, db.Kind)
	}
	pool, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := fixtures.VerifyPostgres(ctx, pool, 1000); err != nil {
		t.Fatal(err)
	}
}

// Without an engine, --db postgres --provider testcontainers fails with one clear line,
// and a pooler in front of a container is refused before anything starts.
func TestTestcontainersPostgresWithoutDockerSaysSo(t *testing.T) {
	ctx := context.Background()
	if _, err := Start(ctx, Options{Kind: "testcontainers", Server: "pgbouncer", Rows: 10, Log: testLog{t}}); err == nil || !strings.Contains(err.Error(), "not a container") {
		t.Errorf("a pooler in front of a container: %v, want it refused", err)
	}
	if DockerHealth(ctx) == nil {
		t.Skip("a Docker engine answers here; the rest is for hosts without one")
	}
	_, err := Start(ctx, Options{Kind: "testcontainers", Server: "postgres", Rows: 10, Log: testLog{t}})
	if err == nil || !strings.Contains(err.Error(), "no Docker engine answers") {
		t.Fatalf("Start without Docker = %v, want 'no Docker engine answers'", err)
	}
}
