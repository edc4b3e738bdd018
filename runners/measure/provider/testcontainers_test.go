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
