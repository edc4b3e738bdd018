// Package protocol names the wire protocols dbbench speaks to a database, and what each
// one's requests are made of: the one list the matrix, the runner and the Go target
// share (go/server takes its names from here). It imports nothing but the standard
// library, so that a package that only reads or renders results can name a protocol
// without linking a database driver.
package protocol

import (
	"fmt"
	"slices"
	"strings"
)

// Protocol is a wire protocol: MySQL's (MariaDB and MySQL speak it) or PostgreSQL's
// (PostgreSQL and a pooler in front of it).
type Protocol string

const (
	MySQL    Protocol = "mysql"
	Postgres Protocol = "postgres"
)

// All are the protocols, MySQL's first: a plain value in the matrix means every one,
// and a run or file that names none means MySQL's (every run before PostgreSQL).
var All = []Protocol{MySQL, Postgres}

// Names are All as strings, in order.
func Names() []string {
	out := make([]string, len(All))
	for i, p := range All {
		out[i] = string(p)
	}
	return out
}

// Parse reads a protocol's name; "" is MySQL's, as in results written before
// PostgreSQL.
func Parse(s string) (Protocol, error) {
	if s == "" {
		return MySQL, nil
	}
	if p := Protocol(s); slices.Contains(All, p) {
		return p, nil
	}
	return "", fmt.Errorf("protocol %q: want one of %s", s, strings.Join(Names(), ", "))
}

// Of is the protocol of a DSN line: a URL postgres:// or postgresql:// (pgx, lib/pq and
// PHP's pgsql read it) is PostgreSQL's; anything else is a go-sql-driver DSN, MySQL's.
func Of(dsn string) Protocol {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		return Postgres
	}
	return MySQL
}

// Commands is what the protocol's requests are made of, as people read the counts:
// MySQL's commands (COM_QUERY …) or PostgreSQL's frontend messages (Parse, Bind …).
func (p Protocol) Commands() string {
	if p == Postgres {
		return "messages"
	}
	return "commands"
}

// Batched says p's commands are messages that a Sync answers in batches, so that their
// count is no count of round trips (PostgreSQL's extended protocol); a count of MySQL's
// commands is one of round trips where each command waits (Waits).
func (p Protocol) Batched() bool { return p == Postgres }

// order is the order a request sends its commands (messages) in, for lists.
var order = map[Protocol][]string{
	MySQL:    {"Connect", "Init DB", "Ping", "Query", "Prepare", "Execute", "Close stmt", "Reset stmt", "Quit"},
	Postgres: {"Connect", "Startup", "Password", "Query", "Parse", "Bind", "Describe", "Execute", "Close", "Sync", "Flush", "Terminate"},
}

// Ordered lists the command names of counts (per request, by name) in the order a
// request of p sends them, then any others by name: lists for people follow it.
func (p Protocol) Ordered(counts ...map[string]float64) []string {
	seq := order[p]
	var out, rest []string
	for _, m := range counts {
		for k := range m {
			switch {
			case slices.Contains(out, k) || slices.Contains(rest, k):
			case slices.Contains(seq, k):
				out = append(out, k)
			default:
				rest = append(rest, k)
			}
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(seq, a) - slices.Index(seq, b) })
	slices.Sort(rest)
	return append(out, rest...)
}

// oneWay are MySQL's commands the server never answers: they cost a packet, not a wait.
var oneWay = map[string]bool{"Close stmt": true, "Quit": true, "Long Data": true}

// Waits says whether the client waits for the server's answer to a MySQL command: a
// round trip. (PostgreSQL's round trips are counted at each Sync or Flush on the wire,
// not by message.)
func Waits(command string) bool { return !oneWay[command] }

// MySQL's authentication paths, as results and reports name them. The server answers a
// caching_sha2_password handshake with AuthMoreData 0x03 when the password's hash is in
// its cache (one round trip), 0x04 when it is not (the full path: without TLS the client
// asks for the server's RSA key and sends the password encrypted with it).
const (
	PathCached  = "caching_sha2_password, cached"
	PathFull    = "caching_sha2_password, full"
	PathFullRSA = "caching_sha2_password, full, RSA key fetched"
	PathTLS     = "TLS (not seen)"
)

// PostgreSQL's authentication paths: SCRAM-SHA-256 (a role whose password is stored
// as a SCRAM verifier, PostgreSQL 14's default) and md5 (one stored as an md5 hash,
// where pg_hba.conf allows md5).
const (
	PathSCRAM = "scram-sha-256"
	PathMD5   = "md5"
)
