package loadgen

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/histogram"
	"dbbench/runners/measure/procstat"
)

// The comparison with wrk is a measurement, not a test: it runs only when asked,
//
//	go test ./loadgen -run TestCompareWithWrk -wrk -v [-wrk.target URL [-wrk.pid PID]] [-wrk.duration 5s] [-wrk.rounds 2]
//
// and prints both tools' QPS and CPU per request; it asserts nothing about speed.
var (
	wrkCompare  = flag.Bool("wrk", false, "run TestCompareWithWrk (needs wrk on PATH)")
	wrkTarget   = flag.String("wrk.target", "", "hello URL to load instead of a spawned Go server, e.g. http://127.0.0.1:8080/hello")
	wrkDuration = flag.Duration("wrk.duration", 5*time.Second, "length of each run")
	wrkRounds   = flag.Int("wrk.rounds", 2, "wrk/loadgen pairs, interleaved")
	wrkConns    = flag.Int("wrk.c", 64, "connections for both tools")
	wrkPID      = flag.Int("wrk.pid", 0, "with -wrk.target: the server's PID, to report its CPU (with all its descendants)")
)

const helloServerEnv = "LOADGEN_TEST_HELLO_SERVER"

// TestMain doubles as the hello server of the comparison, in a process of its own so
// its CPU is not the generator's.
func TestMain(m *testing.M) {
	if os.Getenv(helloServerEnv) == "1" {
		serveHello()
		return
	}
	os.Exit(m.Run())
}

func serveHello() {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(l.Addr().String())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /hello", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("Hello, World!"))
	})
	_ = http.Serve(l, mux)
}

// startHelloServer runs this test binary as the hello server and returns its URL and PID.
func startHelloServer(t *testing.T) (string, int) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helloServerEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("hello server: %v", err)
	}
	return "http://" + strings.TrimSpace(addr) + "/hello", cmd.Process.Pid
}

var (
	wrkRPS      = regexp.MustCompile(`Requests/sec:\s+([0-9.]+)`)
	wrkRequests = regexp.MustCompile(`(\d+) requests in`)
	wrkErrors   = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)|Socket errors: .*`)
)

func TestCompareWithWrk(t *testing.T) {
	if !*wrkCompare {
		t.Skip("a measurement: run with -wrk")
	}
	wrk, err := exec.LookPath("wrk")
	if err != nil {
		t.Skip("wrk not installed")
	}
	target, serverPID := *wrkTarget, *wrkPID
	if target == "" {
		target, serverPID = startHelloServer(t)
	}
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	base := u.Scheme + "://" + u.Host
	serverCPU := func() func() float64 { // CPU seconds of the spawned server since the call
		if serverPID == 0 {
			return func() float64 { return 0 }
		}
		s0, err := procstat.Take(serverPID)
		if err != nil {
			t.Fatal(err)
		}
		return func() float64 {
			s1, err := procstat.Take(serverPID)
			if err != nil {
				t.Fatal(err)
			}
			return s1.Sub(s0).CPU().Seconds()
		}
	}
	secs := strconv.Itoa(max(1, int(wrkDuration.Seconds())))
	var wrkQPS, lgQPS, wrkCPUs, lgCPUs []float64
	defer func() {
		if len(lgQPS) == 0 {
			return
		}
		t.Logf("medians: wrk %.0f req/s %.2f µs/req, loadgen %.0f req/s %.2f µs/req; loadgen/wrk QPS %.2f",
			median(wrkQPS), median(wrkCPUs), median(lgQPS), median(lgCPUs), median(lgQPS)/median(wrkQPS))
	}()
	t.Logf("target %s, %d connections, %v per run, wrk -t2", target, *wrkConns, *wrkDuration)
	t.Logf("%-8s %10s %10s %14s %14s", "tool", "req/s", "requests", "own µs CPU/req", "server µs/req")
	for round := 0; round < *wrkRounds; round++ {
		// wrk
		srv := serverCPU()
		cmd := exec.Command(wrk, "-t2", "-c"+strconv.Itoa(*wrkConns), "-d"+secs+"s", target)
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("wrk: %v\n%s", err, out)
		}
		m, n := wrkRPS.FindSubmatch(out), wrkRequests.FindSubmatch(out)
		if m == nil || n == nil {
			t.Fatalf("cannot read wrk's output:\n%s", out)
		}
		if e := wrkErrors.Find(out); e != nil {
			t.Logf("wrk reported errors: %s", e)
		}
		reqs, _ := strconv.ParseFloat(string(n[1]), 64)
		rps, _ := strconv.ParseFloat(string(m[1]), 64)
		wrkCPU := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
		wrkQPS, wrkCPUs = append(wrkQPS, rps), append(wrkCPUs, wrkCPU/reqs*1e6)
		t.Logf("%-8s %10s %10.0f %14.2f %14.2f", "wrk", m[1], reqs, wrkCPU/reqs*1e6, srv()/reqs*1e6)

		// loadgen
		srv = serverCPU()
		res, err := Run(context.Background(), Config{
			Target: base, Path: u.Path, Connections: *wrkConns, Duration: *wrkDuration,
			Check: func(_ Request, body []byte) error {
				if string(body) != "Hello, World!" {
					return fmt.Errorf("body %q", body)
				}
				return nil
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.ErrorCount() != 0 {
			t.Errorf("loadgen errors %v: %v", res.Errors, res.ErrorSamples)
		}
		lgQPS, lgCPUs = append(lgQPS, res.QPS), append(lgCPUs, res.CPUPerRequest()*1e6)
		t.Logf("%-8s %10.2f %10d %14.2f %14.2f   (%v)", "loadgen", res.QPS, res.Requests,
			res.CPUPerRequest()*1e6, srv()/float64(res.Requests)*1e6, histogram.Summarize(res.Latency))
	}
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
