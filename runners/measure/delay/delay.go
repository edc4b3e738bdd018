// Package delay stands in for network distance between a target and the database: a
// TCP proxy that holds every byte for a fixed time in each direction (this kernel has no
// netem). The rtt sweep and --rtt put it between the targets and the database.
package delay

import (
	"context"
	"fmt"
	"net"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"dbbench/runners/measure/echo"
	"dbbench/runners/measure/precise"
)

// Proxy is a TCP proxy that holds every byte for a fixed time in each direction,
// standing in for network distance between a target and the database (this kernel has
// no netem). It is toxiproxy used as a library, with one toxic of our own: toxiproxy's
// latency toxic counts in whole milliseconds, and the sweep needs 0.2 ms.
type Proxy struct {
	proxy *toxiproxy.Proxy
	once  sync.Once
}

// Module is the toxiproxy this binary was built with, as "toxiproxy v2.5.0": a sweep
// writes it beside its measurements. "toxiproxy" when the binary records no modules.
func Module() string {
	bi, _ := debug.ReadBuildInfo()
	return moduleIn(bi)
}

// moduleIn is toxiproxy's module in bi, which is nil or has no dependencies in a test
// binary.
func moduleIn(bi *debug.BuildInfo) string {
	if bi != nil {
		for _, d := range bi.Deps {
			if d.Path == "github.com/Shopify/toxiproxy/v2" {
				return "toxiproxy " + d.Version
			}
		}
	}
	return "toxiproxy"
}

// delayToxicName is how the toxic is registered with toxiproxy.
const delayToxicName = "dbbench_delay"

// delayToxic forwards each chunk once it is Micros old. Chunks are stamped when read, so
// a stream keeps its throughput: it is a delay line, not a per-chunk sleep that adds up.
type delayToxic struct {
	Micros int64 `json:"micros"`
}

// GetBufferSize lets chunks queue while earlier ones wait out their delay.
func (t *delayToxic) GetBufferSize() int { return 1024 }

func (t *delayToxic) Pipe(stub *toxics.ToxicStub) {
	d := time.Duration(t.Micros) * time.Microsecond
	// A precise timer, not a Go timer or nanosleep (runners/measure/precise). Without a
	// timerfd (out of descriptors) timer is nil and sleeps with a Go timer, late by up to
	// a millisecond when the process is idle, rather than break the link. Its wait cannot
	// be interrupted, which is harmless: toxiproxy interrupts a toxic only to change the
	// chain, which nothing does while connections are open.
	timer, _ := precise.New()
	defer timer.Close()
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			timer.SleepUntil(c.Timestamp.Add(d))
			stub.Output <- c
		}
	}
}

func init() { toxics.Register(delayToxicName, new(delayToxic)) }

// proxyServer is the toxiproxy server every Proxy belongs to: it only carries the
// logger (silent) and metrics (a private registry, never served).
var proxyServer = sync.OnceValue(func() *toxiproxy.ApiServer {
	return toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
})

// Start listens on 127.0.0.1 (a free port) and forwards to upstream, adding
// oneWay to each direction, so a request-response pays 2 × oneWay. With oneWay 0 it
// still proxies, so every point of a sweep pays the same proxy hop.
func Start(upstream string, oneWay time.Duration) (*Proxy, error) {
	return StartOn("127.0.0.1", upstream, oneWay)
}

// StartOn is Start listening on host, an address of this machine the clients reach.
func StartOn(host, upstream string, oneWay time.Duration) (*Proxy, error) {
	if oneWay < 0 {
		return nil, fmt.Errorf("delay: delay %v is negative", oneWay)
	}
	name := fmt.Sprintf("dbbench-delay-%d", time.Now().UnixNano())
	p := toxiproxy.NewProxy(proxyServer(), name, net.JoinHostPort(host, "0"), upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("delay: %w", err)
	}
	d := &Proxy{proxy: p}
	if oneWay > 0 {
		for _, dir := range []string{"upstream", "downstream"} {
			spec := fmt.Sprintf(`{"type":%q,"stream":%q,"attributes":{"micros":%d}}`,
				delayToxicName, dir, oneWay.Microseconds())
			if _, err := p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
				d.Close()
				return nil, fmt.Errorf("delay: add %s delay: %w", dir, err)
			}
		}
	}
	return d, nil
}

// Addr is the host:port targets dial instead of the database's.
func (d *Proxy) Addr() string { return d.proxy.Listen }

// Close stops listening and closes every proxied connection. Safe to call twice.
func (d *Proxy) Close() error {
	d.once.Do(d.proxy.Stop)
	return nil
}

// roundTripEchoes are timed through the proxy; their median is RoundTrip's.
const roundTripEchoes = 50

// RoundTrip is the round trip through a proxy adding rtt (half each way) on this
// machine, in seconds: rtt, and the proxy's own hop and wake-ups on top, which a pool
// check's requests pay and a count made without the proxy does not see. It times
// one-byte echoes to a listener of its own and gives their median.
func RoundTrip(ctx context.Context, rtt time.Duration) (float64, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("delay: %w", err)
	}
	defer l.Close()
	go echo.Serve(l)
	p, err := Start(l.Addr().String(), rtt/2)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	return echo.RTT(ctx, p.Addr(), roundTripEchoes)
}
