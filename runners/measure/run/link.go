package run

import (
	"context"
	"fmt"
	"net"
	"time"

	"dbbench/dsn/protocol"
	"dbbench/runners/measure/echo"
	"dbbench/runners/measure/servers"
	"dbbench/runners/measure/topology"
	"dbbench/runners/results"
	"dbbench/runners/stats"
)

// linkPings are timed on each path; their median is the link's round trip.
const linkPings = 50

// measureLink times the distance between the roles, each on one idle connection:
// a ping (pingProbe) from the targets' side (made in the app's namespace on netns)
// direct to the database and on the targets' path (the DSN they get through the
// counting proxy), a ping from the runner to the database, and a one-byte TCP echo from the runner (the
// load generator) to the app's host. The first two are the Link a report and a pool
// model read; all of them go into the topology's links.
func measureLink(ctx context.Context, topo *topology.Topology, direct, path string, added time.Duration) (*results.Link, []*results.RoleLink, error) {
	d, err := pingRTT(ctx, direct, topo.App.Dial)
	if err != nil {
		return nil, nil, fmt.Errorf("link: app to database: %w", err)
	}
	p, err := pingRTT(ctx, path, topo.App.Dial)
	if err != nil {
		return nil, nil, fmt.Errorf("link: targets' path: %w", err)
	}
	l, err := pingRTT(ctx, direct, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("link: runner to database: %w", err)
	}
	e, err := echoRTT(ctx, topo.App)
	if err != nil {
		return nil, nil, fmt.Errorf("link: runner to app: %w", err)
	}
	ping := pingProbe(direct)
	links := []*results.RoleLink{
		{From: topology.Load, To: topology.App, Via: "direct", Probe: "TCP echo", RTT: e, Pings: linkPings},
		{From: topology.App, To: topology.DB, Via: "direct", Probe: ping, RTT: d, Pings: linkPings},
		{From: topology.App, To: topology.DB, Via: "counting proxy", Probe: ping, RTT: p, Pings: linkPings},
		{From: topology.Load, To: topology.DB, Via: "direct", Probe: ping, RTT: l, Pings: linkPings},
	}
	return &results.Link{Added: added.Seconds(), Direct: d, Path: p, Pings: linkPings}, links, nil
}

// pingProbe names the ping a link is timed with (servers.Server.Probe): MySQL's
// COM_PING, or PostgreSQL's empty query (pgx's Ping), one round trip each.
func pingProbe(line string) string { return servers.For(protocol.Of(line)).Probe() }

// pingRTT times pings on one connection to the database of line (a DSN or a
// PostgreSQL URL), dialled with dial (nil: from here).
func pingRTT(ctx context.Context, line string, dial servers.Dial) (float64, error) {
	ping, closeConn, err := servers.For(protocol.Of(line)).Ping(ctx, line, dial)
	if err != nil {
		return 0, err
	}
	defer closeConn()
	return timedMedian(ping)
}

// echoRTT times a one-byte round trip from the runner to an echo server on the app
// role's address (made in its namespace): the network between the load generator and
// the targets, without a target's work.
func echoRTT(ctx context.Context, app *topology.Role) (float64, error) {
	l, err := app.Listen("tcp", net.JoinHostPort(app.Addr, "0"))
	if err != nil {
		return 0, err
	}
	defer l.Close()
	go echo.Serve(l)
	return echo.RTT(ctx, l.Addr().String(), linkPings)
}

// timedMedian times linkPings+1 calls of once and returns the median of all but the
// first, which may pay the connection's set-up.
func timedMedian(once func() error) (float64, error) {
	rtts := make([]float64, 0, linkPings+1)
	for range linkPings + 1 {
		t0 := time.Now()
		if err := once(); err != nil {
			return 0, err
		}
		rtts = append(rtts, time.Since(t0).Seconds())
	}
	return stats.Median(rtts[1:]), nil
}
