package dsn

import "dbbench/dsn/protocol"

// A connection line is what a DSN file holds: a go-sql-driver DSN on MySQL's protocol
// (mysqlline.go) or a URL on PostgreSQL's (postgresline.go). Each protocol's file says
// how its lines are checked, pointed at another address and taken apart; the functions
// here pick the file by protocol.Of, so that no caller branches on the protocol.
type lines interface {
	check(line string) error
	withAddr(line, addr string) (string, error)
	tcp(line string) (TCP, error)
	password(line string) string // even from a malformed line
}

var byProtocol = map[protocol.Protocol]lines{protocol.MySQL: mysqlLines{}, protocol.Postgres: postgresLines{}}

func linesOf(line string) lines { return byProtocol[protocol.Of(line)] }

// Check says whether line is a whole connection line: well formed, naming a host (or
// socket) and a database. Its errors never contain the password.
func Check(line string) error { return linesOf(line).check(line) }

// WithAddr is line reaching host:port addr over TCP instead of its own address: to
// route a target through a proxy or a pooler.
func WithAddr(line, addr string) (string, error) { return linesOf(line).withAddr(line, addr) }

// TCP is where, and as whom, a line connects over TCP.
type TCP struct {
	Host, Port, Database, User, Password string
}

// TCPOf takes line apart for a client that connects over TCP (a PHP target's PDO DSN);
// a line that does not connect over TCP is an error. Errors never contain the password.
func TCPOf(line string) (TCP, error) { return linesOf(line).tcp(line) }
