package main

import (
	"slices"
	"testing"

	"dbbench/runners/provider"
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
