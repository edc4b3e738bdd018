package loadgen

import (
	"bytes"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"dbbench/runners/histogram"
)

// rawServer answers every request with the bytes of resp, closing the connection
// after each answer when closeAfter is set. It counts the connections it accepted.
func rawServer(t *testing.T, resp string, closeAfter bool) (url string, conns *atomic.Int64) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns = new(atomic.Int64)
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			wg.Go(func() {
				defer c.Close()
				// A fixed buffer, so the server allocates nothing per request.
				buf := make([]byte, 8192)
				n := 0
				for {
					end := bytes.Index(buf[:n], []byte("\r\n\r\n"))
					if end < 0 {
						m, err := c.Read(buf[n:])
						if err != nil {
							return
						}
						n += m
						continue
					}
					n = copy(buf, buf[end+4:n])
					if _, err := c.Write([]byte(resp)); err != nil || closeAfter {
						return
					}
				}
			})
		}
	})
	return "http://" + l.Addr().String(), conns
}

func TestResponseFraming(t *testing.T) {
	const hello = "Hello, World!"
	for _, tc := range []struct {
		name       string
		resp       string
		closeAfter bool
		wantConns  int64 // for 3 requests on one worker
		wantBody   string
	}{
		{"content-length", "HTTP/1.1 200 OK\r\nContent-Length: 13\r\n\r\n" + hello, false, 1, hello},
		{"header case and spacing", "HTTP/1.1 200 OK\r\ncontent-LENGTH:13  \r\nX-A: b\r\n\r\n" + hello, false, 1, hello},
		{"chunked with extension and trailer", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nHello\r\n8;x=1\r\n, World!\r\n0\r\nX-T: 1\r\n\r\n", false, 1, hello},
		{"empty body", "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", false, 1, ""},
		{"until close", "HTTP/1.1 200 OK\r\n\r\n" + hello, true, 3, hello},
		{"connection close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 13\r\n\r\n" + hello, true, 3, hello},
		{"http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 13\r\n\r\n" + hello, true, 3, hello},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, conns := rawServer(t, tc.resp, tc.closeAfter)
			var bodies []string
			res := mustRun(t, Config{Target: url, Path: "/hello", Connections: 1, Requests: 3, CheckEvery: 1,
				Check: func(q Request, body []byte) error {
					if q.ID != 0 || q.Op != Get {
						t.Errorf("request %+v for a path without {id}", q)
					}
					bodies = append(bodies, string(body))
					return nil
				}})
			if res.OK != 3 || res.Checked != 3 {
				t.Fatalf("OK %d checked %d, errors %v %v", res.OK, res.Checked, res.Errors, res.ErrorSamples)
			}
			for _, b := range bodies {
				if b != tc.wantBody {
					t.Fatalf("body %q, want %q", b, tc.wantBody)
				}
			}
			if got := conns.Load(); got != tc.wantConns {
				t.Fatalf("%d connections, want %d", got, tc.wantConns)
			}
		})
	}
}

func TestMalformedResponsesAreReadErrors(t *testing.T) {
	for name, resp := range map[string]string{
		"garbage":         "garbage\r\n\r\n",
		"bad status":      "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n",
		"bad length":      "HTTP/1.1 200 OK\r\nContent-Length: -3\r\n\r\n",
		"header no colon": "HTTP/1.1 200 OK\r\nnonsense\r\n\r\n",
		"short body":      "HTTP/1.1 200 OK\r\nContent-Length: 20\r\n\r\nHello",
		"bad chunk":       "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
	} {
		t.Run(name, func(t *testing.T) {
			url, _ := rawServer(t, resp, true)
			res := mustRun(t, Config{Target: url, Path: "/hello", Connections: 1, Requests: 2})
			if res.Errors[ErrRead] != 2 {
				t.Fatalf("errors %v, want 2 read errors", res.Errors)
			}
		})
	}
}

func TestRequestBytes(t *testing.T) {
	c := newClient("127.0.0.1:80", "127.0.0.1:80", "GET", "/base/users/", ".json", true, false, 0)
	c.req = append(append(append(c.req[:0], c.reqHead...), "42"...), c.reqTail...)
	c.appendEnd(Request{Op: Get, ID: 42})
	got := string(c.req)
	want := "GET /base/users/42.json HTTP/1.1\r\nHost: 127.0.0.1:80\r\nUser-Agent: dbbench-loadgen\r\nConnection: close\r\n\r\n"
	if got != want {
		t.Fatalf("request\n%q\nwant\n%q", got, want)
	}
	p, err := Config{Target: "http://127.0.0.1:80/base/", Path: "/users/{id}.json", Rows: 1, Connections: 1, Requests: 1}.plan()
	if err != nil {
		t.Fatal(err)
	}
	if p.pathHead != "/base/users/" || p.pathTail != ".json" {
		t.Fatalf("path split %q %q", p.pathHead, p.pathTail)
	}
}

func TestHistogramExport(t *testing.T) {
	s := newUsersServer(t, 0)
	res := mustRun(t, Config{Target: s.URL, Rows: 10, Connections: 2, Requests: 500})
	var buf bytes.Buffer
	if err := histogram.WriteHGRM(&buf, res.Latency); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.HasPrefix(out, "       Value     Percentile TotalCount 1/(1-Percentile)") &&
		!strings.HasPrefix(out, " Value\tPercentile\tTotalCount\t1/(1-Percentile)") {
		t.Fatalf("hgrm header: %q", strings.SplitN(out, "\n", 2)[0])
	}
	if !strings.Contains(out, "Total count    =          500]") {
		t.Fatalf("hgrm footer does not count 500:\n%s", out[max(0, len(out)-300):])
	}
	enc, err := histogram.Encode(res.Latency)
	if err != nil {
		t.Fatal(err)
	}
	h, err := histogram.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Equals(res.Latency) {
		t.Fatal("decoded histogram differs from the encoded one")
	}
	merged := histogram.New()
	merged.Merge(h)
	merged.Merge(res.Latency)
	if merged.TotalCount() != 1000 || merged.Max() != res.Latency.Max() {
		t.Fatalf("merged count %d max %d", merged.TotalCount(), merged.Max())
	}
	if _, err := histogram.Decode("not base64!"); err == nil {
		t.Fatal("decoding garbage succeeded")
	}
}

// The generator must not be the bottleneck: a request should cost it little CPU and
// allocate next to nothing, or GC would add to the CPU it shares with the target.
func TestRequestAllocations(t *testing.T) {
	url, _ := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\n{\"id\":1}", false)
	for _, op := range []Op{Get, List, Insert, Update} {
		p, err := Config{Target: url, Op: op, Rows: 100, Limit: 10, Connections: 1, Requests: 1}.plan()
		if err != nil {
			t.Fatal(err)
		}
		w := newWorker(&run{plan: p}, 0)
		keep := func(int) bool { return false }
		if _, err := w.c.do(w.next(), time.Now(), keep); err != nil { // connect outside the measurement
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(200, func() {
			if _, err := w.c.do(w.next(), time.Now(), keep); err != nil {
				t.Fatal(err)
			}
		})
		w.c.close()
		// The deadline timer may allocate now and then; the request path itself must not.
		if allocs > 1 {
			t.Fatalf("%s: %.1f allocations per request", op, allocs)
		}
	}
}
