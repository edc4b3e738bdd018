package run

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/go-sql-driver/mysql"

	"dbbench/runners/results"
)

// linkPings are timed on each path; their median is the link's round trip.
const linkPings = 50

// measureLink times COM_PING on one idle connection, direct to the database and on the
// targets' path (the DSN the targets get through the counting proxy), so a report can
// say how far the database was, and a pool model use the distance as measured.
func measureLink(ctx context.Context, direct *mysql.Config, path string, added time.Duration) (*results.Link, error) {
	d, err := pingRTT(ctx, direct)
	if err != nil {
		return nil, fmt.Errorf("link: direct: %w", err)
	}
	pc, err := mysql.ParseDSN(path)
	if err != nil {
		return nil, fmt.Errorf("link: %w", err)
	}
	p, err := pingRTT(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("link: targets' path: %w", err)
	}
	return &results.Link{Added: added.Seconds(), Direct: d, Path: p, Pings: linkPings}, nil
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
	rtts := make([]float64, 0, linkPings)
	for range linkPings + 1 {
		t0 := time.Now()
		if err := conn.PingContext(ctx); err != nil {
			return 0, err
		}
		rtts = append(rtts, time.Since(t0).Seconds())
	}
	rtts = rtts[1:] // the first may pay the connection's set-up
	slices.Sort(rtts)
	return rtts[len(rtts)/2], nil
}
