package sweep

import (
	"fmt"
	"strings"
	"sync"
	"syscall"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
)

// DelayProxy is a TCP proxy that holds every byte for a fixed time in each direction,
// standing in for network distance between a target and the database (this kernel has
// no netem). It is toxiproxy used as a library, with one toxic of our own: toxiproxy's
// latency toxic counts in whole milliseconds, and the sweep needs 0.2 ms.
type DelayProxy struct {
	proxy *toxiproxy.Proxy
	once  sync.Once
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
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			sleepUntil(c.Timestamp.Add(d))
			stub.Output <- c
		}
	}
}

func init() { toxics.Register(delayToxicName, new(delayToxic)) }

// sleepUntil blocks the goroutine's thread in nanosleep until t. A Go timer will not
// do: when the process is otherwise idle the runtime waits for timers in epoll, whose
// timeout is whole milliseconds, so a 0.2 ms timer fires after about 1 ms (measured:
// 0.2 ms each way added as much as 1 ms). nanosleep is exact to the kernel's timer
// slack (50 µs). The sleep cannot be interrupted, which is harmless: toxiproxy only
// interrupts a toxic to change the toxic chain, and the sweep never does that while
// connections are open; a closing link still delivers every chunk, at most one delay
// late.
// prSetTimerSlack is PR_SET_TIMERSLACK from linux/prctl.h.
const prSetTimerSlack = 29

func sleepUntil(t time.Time) {
	for {
		wait := time.Until(t)
		if wait <= 0 {
			return
		}
		// The default slack lets the kernel wake the thread up to 50 µs late, a quarter
		// of 0.2 ms: ask for 1 ns on whichever thread this goroutine sleeps on.
		syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerSlack, 1, 0)
		ts := syscall.NsecToTimespec(wait.Nanoseconds())
		if err := syscall.Nanosleep(&ts, nil); err != nil && err != syscall.EINTR {
			time.Sleep(wait) // not expected on Linux; a late chunk beats a lost one
			return
		}
	}
}

// proxyServer is the toxiproxy server every DelayProxy belongs to: it only carries the
// logger (silent) and metrics (a private registry, never served).
var proxyServer = sync.OnceValue(func() *toxiproxy.ApiServer {
	return toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
})

// StartDelayProxy listens on 127.0.0.1 (a free port) and forwards to upstream, adding
// oneWay to each direction, so a request-response pays 2 × oneWay. With oneWay 0 it
// still proxies, so every point of a sweep pays the same proxy hop.
func StartDelayProxy(upstream string, oneWay time.Duration) (*DelayProxy, error) {
	if oneWay < 0 {
		return nil, fmt.Errorf("delay proxy: delay %v is negative", oneWay)
	}
	name := fmt.Sprintf("dbbench-delay-%d", time.Now().UnixNano())
	p := toxiproxy.NewProxy(proxyServer(), name, "127.0.0.1:0", upstream)
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("delay proxy: %w", err)
	}
	d := &DelayProxy{proxy: p}
	if oneWay > 0 {
		for _, dir := range []string{"upstream", "downstream"} {
			spec := fmt.Sprintf(`{"type":%q,"stream":%q,"attributes":{"micros":%d}}`,
				delayToxicName, dir, oneWay.Microseconds())
			if _, err := p.Toxics.AddToxicJson(strings.NewReader(spec)); err != nil {
				d.Close()
				return nil, fmt.Errorf("delay proxy: add %s delay: %w", dir, err)
			}
		}
	}
	return d, nil
}

// Addr is the host:port targets dial instead of the database's.
func (d *DelayProxy) Addr() string { return d.proxy.Listen }

// Close stops listening and closes every proxied connection. Safe to call twice.
func (d *DelayProxy) Close() error {
	d.once.Do(d.proxy.Stop)
	return nil
}
