package main

import (
	"io"
	"testing"
)

// The pool answer's max_connections is the flag's, or the default of the server the
// answer is for: MariaDB's and MySQL's 151, PostgreSQL's 100.
func TestMaxConnectionsDefaultIsTheAnsweredServers(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--db", "mariadb"}, 151},
		{[]string{"--db", "mysql"}, 151},
		{[]string{"--db", "postgres"}, 100},
		{[]string{"--db", "mariadb,postgres"}, 151}, // answered for MariaDB, the first
		{[]string{"--db", "postgres", "--max-connections", "300"}, 300},
	} {
		cfg, err := readRun(newFlagSet("run", io.Discard), append(c.args, "--preset", "smoke"))
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got := cfg.opts.PoolNeed.MaxConnections; got != c.want {
			t.Errorf("%v: max_connections %d, want %d", c.args, got, c.want)
		}
	}
}
