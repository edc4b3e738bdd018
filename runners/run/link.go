package run

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"time"

	"github.com/go-sql-driver/mysql"

	"dbbench/runners/echo"
	"dbbench/runners/results"
	"dbbench/runners/stats"
	"dbbench/runners/topology"
)

// linkPings are timed on each path; their median is the link's round trip.
const linkPings = 50

// measureLink times the distance between the roles, each on one idle connection:
// COM_PING from the targets' side (made in the app's namespace on netns) direct to the
// database and on the targets' path (the DSN they get through the counting proxy),
// COM_PING from the runner to the database, and a one-byte TCP echo from the runner (the
// load generator) to the app's host. The first two are the Link a report and a pool
// model read; all of them go into the topology's links.
func measureLink(ctx context.Context, topo *topology.Topology, direct *mysql.Config, path string, added time.Duration) (*results.Link, []*results.RoleLink, error) {
	fromApp := direct.Clone()
	fromApp.DialFunc = topo.App.Dial
	d, err := pingRTT(ctx, fromApp)
	if err != nil {
		return nil, nil, fmt.Errorf("link: app to database: %w", err)
	}
	pc, err := mysql.ParseDSN(path)
	if err != nil {
		return nil, nil, fmt.Errorf("link: %w", err)
	}
	pc.DialFunc = topo.App.Dial
	p, err := pingRTT(ctx, pc)
	if err != nil {
		return nil, nil, fmt.Errorf("link: targets' path: %w", err)
	}
	l, err := pingRTT(ctx, direct)
	if err != nil {
		return nil, nil, fmt.Errorf("link: runner to database: %w", err)
	}
	e, err := echoRTT(ctx, topo.App)
	if err != nil {
		return nil, nil, fmt.Errorf("link: runner to app: %w", err)
	}
	links := []*results.RoleLink{
		{From: topology.Load, To: topology.App, Via: "direct", Probe: "TCP echo", RTT: e, Pings: linkPings},
		{From: topology.App, To: topology.DB, Via: "direct", Probe: "COM_PING", RTT: d, Pings: linkPings},
		{From: topology.App, To: topology.DB, Via: "counting proxy", Probe: "COM_PING", RTT: p, Pings: linkPings},
		{From: topology.Load, To: topology.DB, Via: "direct", Probe: "COM_PING", RTT: l, Pings: linkPings},
	}
	return &results.Link{Added: added.Seconds(), Direct: d, Path: p, Pings: linkPings}, links, nil
}

func pingRTT(ctx context.Context, cfg *mysql.Config) (float64, error) {
	c, err := mysql.NewConnector(cfg)
	if err != nil {
		return 0, err
	}
	db := sql.OpenDB(c)
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	return timedMedian(func() error { return conn.PingContext(ctx) })
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
