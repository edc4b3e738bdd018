// Package servers holds what each database server differs in, for the packages that
// measure and watch it (the run, the soak): the figures it shows about its clients, the
// limits those figures run into, how it lists its clients, its processes and their
// counters, how it is pinged, what keeps a commit, and what it is running. One file per
// server protocol; the run and the soak ask For(protocol) and never branch on a name.
package servers

import (
	"context"
	"database/sql"
	"net"

	"dbbench/dsn/protocol"
	"dbbench/runners/measure/procstat"
	"dbbench/runners/measure/roundtrip"
)

// Server is one server protocol's way of showing its clients.
type Server interface {
	// Limits reads, once, the settings the server's figures run into.
	Limits(ctx context.Context, db *sql.DB) (Limits, error)
	// Status reads the server's global figures about its clients, each with the limit
	// it runs into (from lim).
	Status(ctx context.Context, db *sql.DB, lim Limits) ([]Reading, error)
	// Clients lists the client connections by the server's id for them, less the
	// asker's own; with traced, each with what Traces said it can read.
	Clients(ctx context.Context, db *sql.DB, traced Traced) (map[int64]Client, error)
	// Traces says what Clients can read for each client on this server, as this user.
	Traces(ctx context.Context, db *sql.DB) Traced
	// Counts reads the server's running totals of the work a client's connections and
	// statements cost it, which a run reads around each slice (Counts).
	Counts(ctx context.Context, db *sql.DB) (Counts, error)
	// Processes lists the server's processes from its main one (pid).
	Processes(pid int) []int
	// Light reads the light counters (CPU, switches) of the server whose main process
	// is pid, all of its processes.
	Light(pid int) (procstat.Light, error)
	// Running reads how many statements the server is running at once, the asker's own
	// left out; ok is false when it could not be read.
	Running(ctx context.Context, db *sql.DB) (n int64, ok bool)
	// Durability reads the settings that decide whether an acknowledged commit
	// survives a killed server: them in words, and whether it does.
	Durability(ctx context.Context, db *sql.DB) (settings string, safe bool, err error)
	// Probe names what Ping sends: one round trip each.
	Probe() string
	// Capture counts what requests calls of do send this server: the wire through proxy
	// and, where the server keeps one, its own log (runners/measure/roundtrip).
	Capture(ctx context.Context, admin *sql.DB, requests int, do func(ctx context.Context) error, proxy *roundtrip.Proxy) (*roundtrip.Result, error)
	// CountingProxy starts the proxy that counts this protocol's commands between the
	// targets and upstream, listening on host (runners/measure/roundtrip).
	CountingProxy(host, upstream string) (*roundtrip.Proxy, error)
	// Ping opens one connection to the database line names (a DSN or a PostgreSQL
	// URL), dialled with dial (nil: from here), and returns what pings it; close ends it.
	Ping(ctx context.Context, line string, dial Dial) (ping func() error, close func(), err error)
	// Untraced says, for people, what a soak cannot see of another client's
	// statements on this server and why ("" when it can).
	Untraced(t Traced) string
}

// Dial opens a network connection, as a driver's DialFunc does.
type Dial = func(ctx context.Context, network, addr string) (net.Conn, error)

// For is the server that speaks p.
func For(p protocol.Protocol) Server {
	if p == protocol.Postgres {
		return postgres{}
	}
	return mysql{}
}

// Counts are a server's running totals: the connections it accepted and, where it
// counts them (MySQL's Com_stmt_prepare; PostgreSQL counts none), the statements it
// prepared. The differences around a slice, per request, are its dials and prepares.
type Counts struct {
	Connections int64
	Prepares    int64
	PreparesOK  bool
}

// Limits are the server settings the figures run into; 0 is none.
type Limits struct {
	Connections float64
	// Statements is the server-wide limit of prepared statements, StatementsName its
	// setting ("" for a server without one).
	Statements     float64
	StatementsName string
}

// Reading is one global figure of the server, as a soak records it.
type Reading struct {
	Name  string // stable id in soak.json: threads_connected, connections, …
	Label string // as the server's own documentation names it
	Unit  string // "count", "s"
	Value float64
	// Limit names the setting the figure runs into ("" for none), and its value.
	Limit      string
	LimitValue float64
	// Held: the figure counts what the server holds for its clients (connections,
	// statements, open transactions): one that rises gives a soak its own exit status.
	Held bool
	// Level: judged as a level (an age), not as a count.
	Level bool
}

// Client is one client connection the server lists.
type Client struct {
	Port   int   // client port; 0 for a Unix socket
	Stmts  int   // prepared statements it holds (when Traced.Statements)
	Memory int64 // bytes its server process holds privately (when Traced.Memory)
}

// Traced says what Clients reads for each client beyond its port.
type Traced struct {
	Statements bool
	Memory     bool
}
