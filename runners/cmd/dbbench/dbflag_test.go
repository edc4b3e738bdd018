package main

import (
	"slices"
	"testing"

	"dbbench/runners/measure/provider"
)

// --db offers the servers the provider can start, and they are the matrix's dbs, in
// the same order (the first is the default of both): the two lists cannot drift.
func TestDBFlagServersAreTheMatrixDBs(t *testing.T) {
	_, m, err := loadMatrix("")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(provider.Servers, m.DBNames()) {
		t.Fatalf("provider.Servers %v, matrix.yaml dbs %v: want the same list", provider.Servers, m.DBNames())
	}
}

// A db behind a pooler starts what matrix.yaml says it is: its server and its pooler.
func TestPoolerDBsStartWhatTheMatrixSays(t *testing.T) {
	_, m, err := loadMatrix("")
	if err != nil {
		t.Fatal(err)
	}
	poolers := 0
	for _, name := range m.DBNames() {
		d := m.DBs[name]
		started, pooler := provider.Behind(name)
		if started != d.StartedServer() || pooler != d.Pooler {
			t.Errorf("db %s: the provider starts %s behind %q, matrix.yaml says %s behind %q", name, started, pooler, d.StartedServer(), d.Pooler)
		}
		if pooler != "" {
			poolers++
		}
	}
	if poolers == 0 {
		t.Error("matrix.yaml lists no db behind a pooler")
	}
}
