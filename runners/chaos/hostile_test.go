package chaos

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"dbbench/fixtures"
	"dbbench/runners/measure/dbtest"
	"dbbench/runners/measure/freeport"
)

// hostilePaths generates n request targets, deterministically from seed: ids and paths
// that no target may answer with anything but 400, 404 or 405.
func hostilePaths(seed uint64, n int) []string {
	rng := rand.New(rand.NewPCG(seed, 5))
	frags := []string{
		"+1", "-1", "+0", "-0", "0", "00", "007", "1.5", "1,5", "1_000", " 1", "1 ", "\t1",
		"1e3", "1E9", "1.0e2", "1e-1", "0x1F", "0X10", "0b101", "0o17", "1h", "∞", "NaN", "Inf",
		"٤٢", "४२", "４２", "๔๒", "߄߂", "১২", "𝟒𝟐", "²", "Ⅻ", "一", // other scripts' digits
		"%00", "1%00", "%001", "%", "%zz", "%u0031", "%2F", "%2f1", "1%2F2", "%25", "%2500", "%C0%80", "%FF", "%E0%A5%AA",
		"1'", "1\"", "1;DROP%20TABLE%20users", "1%27%20OR%20%271%27=%271", "1%20OR%201=1", "1--", "1/**/OR/**/1",
		"1%20UNION%20SELECT%20name%20FROM%20users", "SLEEP(5)", "1;SELECT%20SLEEP(1)", "%27;--", "1%27%29%3B",
		"..", "../..", "..%2F..%2Fetc%2Fpasswd", "%2e%2e", "%2e%2e%2f", "....//", "..\\..", "etc/passwd",
		"4294967296", "4294967295999", "18446744073709551616", "99999999999999999999999999", "-4294967295",
		"9223372036854775808", "1000000000000", "0000000000000000000001",
		"", "/", "//", "///", "?", "?id=1", "#1", "%3F", "%23", "~", "*", "@", "!", "$", "(1)", "[1]", "{1}",
	}
	prefixes := []string{"/users/", "/users/", "/users/", "/users//", "//users/", "/users/1/", "/hello/", "/", "/Users/",
		"/users", "/USERS/", "/users/./", "/./users/", "/users/../users/", "/hello//", "///", "/users%2F", "/%75sers/"}
	valid := regexp.MustCompile(`^/users/[1-9][0-9]{0,9}$`)
	var out []string
	seen := map[string]bool{}
	for len(out) < n {
		var p string
		switch k := rng.IntN(10); {
		case k == 0: // overlong: thousands of digits, or of leading zeros before a 1
			d := strings.Repeat(string("09"[rng.IntN(2)]), 11+rng.IntN(6000))
			p = "/users/" + d + "1"
		case k == 1: // repeated slashes
			p = strings.Repeat("/", 2+rng.IntN(20)) + []string{"users/1", "hello", "users//2", ""}[rng.IntN(4)]
		default:
			p = prefixes[rng.IntN(len(prefixes))] + frags[rng.IntN(len(frags))]
			if rng.IntN(3) == 0 {
				p += frags[rng.IntN(len(frags))]
			}
		}
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
		// Spaces and tabs cannot be in a request target: send them percent-encoded.
		p = strings.NewReplacer(" ", "%20", "\t", "%09", "\\", "%5C", "#", "%23").Replace(p)
		if seen[p] {
			continue
		}
		// A target that decodes to a canonical valid path is not hostile: /users/%31 is /users/1.
		if dec, err := url.PathUnescape(p); err == nil && (dec == "/hello" || (valid.MatchString(dec) && okID(dec[7:]))) {
			continue
		}
		seen[p] = true
		out = append(out, p)
	}
	return out
}

func okID(s string) bool {
	n, err := strconv.ParseUint(s, 10, 64)
	return err == nil && n >= 1 && n <= 4294967295
}

// malformed are whole requests that are wrong beyond their path.
func malformed() map[string]string {
	big := strings.Repeat("a", 2<<20)
	many := strings.Repeat("X-H: 1\r\n", 150000) // 1.2 MB of headers
	return map[string]string{
		"unknown method":        "BREW /users/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"DELETE":                "DELETE /users/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"POST with a body":      "POST /users/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nConnection: close\r\n\r\nabcd",
		"PUT on hello":          "PUT /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
		"lower-case method":     "get /users/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"NUL in the method":     "G\x00T /users/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"NUL in the path":       "GET /users/1\x00 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
		"oversized header":      "GET /users/1 HTTP/1.1\r\nHost: x\r\nX-Big: " + big + "\r\nConnection: close\r\n\r\n",
		"150,000 headers":       "GET /users/1 HTTP/1.1\r\nHost: x\r\n" + many + "Connection: close\r\n\r\n",
		"header without colon":  "GET /users/1 HTTP/1.1\r\nHost: x\r\nBroken header\r\nConnection: close\r\n\r\n",
		"negative length":       "POST /users/1 HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\nConnection: close\r\n\r\n",
		"huge length":           "POST /users/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\nConnection: close\r\n\r\n",
		"two lengths":           "POST /users/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\nConnection: close\r\n\r\nab",
		"bad chunked body":      "POST /users/1 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n",
		"oversized request URI": "GET /users/" + strings.Repeat("1", 70000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
	}
}

// send writes req on a new connection and returns the response's status code; 0 when
// the server closed the connection without a status line.
func send(addr, req string) (int, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(15 * time.Second))
	// Write concurrently: a server may answer (and close) before reading all of a huge request.
	go io.WriteString(c, req)
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		if err == io.EOF || strings.Contains(err.Error(), "reset") {
			return 0, nil
		}
		return 0, err
	}
	f := strings.Fields(line)
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/") {
		return 0, fmt.Errorf("not a status line: %q", line)
	}
	return strconv.Atoi(f[1])
}

// 5. Hostile HTTP input to every target family.
func TestHostileInput(t *testing.T) {
	db := dbtest.Start(t, 1000)
	keep := map[int]bool{db.PID: true}
	families := []string{
		"lang=go/layer=raw/stmt=prepare/conn=persistent/pool=8",
		"lang=php/layer=raw/stmt=prepare/conn=persistent/pool=4",
		"lang=php/server=worker/layer=raw/stmt=interpolate/conn=persistent/pool=4",
	}
	if full {
		families = append(families,
			"lang=go/layer=orm/stmt=interpolate/conn=persistent/pool=8",
			"lang=go/layer=gorm/stmt=prepared/conn=persistent/pool=8",
			"lang=go/layer=hello/stmt=none/conn=none/pool=8",
			"lang=php/layer=orm/stmt=interpolate/conn=persistent/pool=4",
			"lang=php/layer=builder/stmt=prepare/conn=per-request/pool=4",
			"lang=php/layer=hello/stmt=none/conn=none/pool=4",
			"lang=php/server=worker/layer=orm/stmt=prepare/conn=per-request/pool=4")
	}
	paths := hostilePaths(20261122, 1200)
	bad := malformed()
	for _, v := range families {
		t.Run(v, func(t *testing.T) {
			tmp := newTmp(t)
			args := []string{"serve", v}
			if !strings.Contains(v, "layer=hello") {
				args = append(args, "--dsn-file", db.DSNFile)
			}
			p, addr := serve(t, tmp, args...)
			counts := map[int]int{}
			var wrong []string
			for _, path := range paths {
				code, err := send(addr, "GET "+path+" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
				counts[code]++
				if err != nil || (code != 400 && code != 404 && code != 405) {
					wrong = append(wrong, fmt.Sprintf("%d %v %q", code, err, trim(path, 80)))
				}
			}
			for name, req := range bad {
				code, err := send(addr, req)
				counts[code]++
				// Beyond the path, any 4xx (or a close without answer) is a refusal; a 5xx is not.
				if err != nil || code >= 500 || (code != 0 && code < 400) {
					wrong = append(wrong, fmt.Sprintf("%d %v %s", code, err, name))
				}
			}
			for i, w := range wrong {
				if i == 20 {
					t.Errorf("… %d more", len(wrong)-20)
					break
				}
				t.Errorf("wrong answer: %s", w)
			}
			// Still alive and still right, and the table untouched.
			okAfter := stillAnswers(t, addr, strings.Contains(v, "layer=hello"))
			pool, err := db.Open()
			if err != nil {
				t.Fatal(err)
			}
			defer pool.Close()
			if err := fixtures.Verify(context.Background(), pool, 1000); err != nil {
				t.Errorf("the table changed: %v", err)
			}
			p.signal(syscall.SIGINT)
			if code := p.wait(30 * time.Second); code != 0 {
				t.Errorf("serve exit status %d after SIGINT:\n%s", code, p.errText())
			}
			left := leftovers(t, tmp, keep)
			var by []string
			for _, c := range []int{0, 400, 404, 405, 413, 414, 431} {
				if counts[c] > 0 {
					by = append(by, fmt.Sprintf("%d×%d", counts[c], c))
				}
			}
			table.Add(Row{"hostile input (" + short(v) + ")", fmt.Sprintf("%d paths + %d malformed requests", len(paths), len(bad)),
				fmt.Sprintf("%s (0 = closed); %d wrong; answers after: %v; table checksum ok", strings.Join(by, " "), len(wrong), okAfter), left, "-"})
		})
	}
}

// serve starts dbbench serve with args on a free loopback port and waits until it
// serves. The port is below the kernel's ephemeral range (package freeport), so no
// outgoing connection takes it between the pick and the bind; should another listener
// take it meanwhile, serve fails with "in use" and is started again on another port.
func serve(t *testing.T, tmp string, args ...string) (*proc, string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		addr, err := freeport.Addr()
		if err != nil {
			t.Fatal(err)
		}
		p := dbbench(t, tmp, append(args, "--listen", addr)...)
		if serving(t, p) {
			return p, addr
		}
		if attempt == 5 || !inUse.MatchString(p.lastLine()) {
			t.Fatalf("serve ended before it served:\n%s", p.errText())
		}
		t.Logf("%s was taken before serve could listen there: %s", addr, p.lastLine())
	}
}

// serving waits until p says it serves (true) or ends (false).
func serving(t *testing.T, p *proc) bool {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second) // a hang guard: starting takes a second or two
	for !strings.Contains(p.outText(), "serving ") {
		select {
		case <-p.done:
			return strings.Contains(p.outText(), "serving ")
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve not serving after 60 s:\n%s", p.errText())
		}
	}
	return true
}

var inUse = regexp.MustCompile(`(?i)in use`)

func short(v string) string {
	f := strings.Split(v, "/")
	return strings.TrimPrefix(f[0], "lang=") + " " + strings.TrimPrefix(f[1], "layer=")
}

// stillAnswers checks /hello and, with a database, /users/42 against the fixture function.
func stillAnswers(t *testing.T, addr string, hello bool) bool {
	t.Helper()
	c := http.Client{Timeout: 10 * time.Second}
	path := "/users/42"
	if hello {
		path = "/hello"
	}
	resp, err := c.Get("http://" + addr + path)
	if err != nil {
		t.Errorf("after the hostile input: %v", err)
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Errorf("after the hostile input: %s %d %s", path, resp.StatusCode, b)
		return false
	}
	if hello {
		return string(b) == "Hello, World!"
	}
	var u struct {
		ID   int    `json:"id"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &u); err != nil || u.ID != 42 || u.Name != fixtures.Name(42) {
		t.Errorf("after the hostile input: /users/42 = %s", b)
		return false
	}
	return true
}
