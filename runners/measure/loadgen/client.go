package loadgen

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"time"
)

// client is one HTTP/1.1 connection, written for small requests and responses and
// little else: the request is pre-formatted bytes with the id (or an insert's body)
// spliced in, the response parser
// reads the status line, Content-Length, Transfer-Encoding and Connection, and nothing
// is allocated per request. net/http's client costs more CPU per request (README.md,
// "Measured"), and on two cores the generator shares the CPU with what it measures.
type client struct {
	addr      string
	keepAlive bool
	timeout   time.Duration
	reqHead   []byte // "GET /users/"
	reqTail   []byte // " HTTP/1.1\r\nHost: ...\r\n", the end of the head after it (appendEnd)
	hasID     bool
	post      bool // the request says its body's length

	nc    net.Conn
	br    *bufio.Reader
	req   []byte
	out   []byte // an insert's body, before it goes into req
	body  []byte
	spent bool                // the connection carried its last response
	reg   func(net.Conn) bool // records the connection so a cancel can interrupt it; false: stop
	stop  *atomic.Bool        // set when the run is cancelled
	dial  net.Dialer
}

// errClass sorts a failed request into the classes of Result.Errors.
type errClass int

const (
	classNone errClass = iota
	classConnect
	classWrite
	classRead
	classTimeout
	classNon2xx
	classBody
	numClasses
)

var classNames = [numClasses]string{"", ErrConnect, ErrWrite, ErrRead, ErrTimeout, ErrNon2xx, ErrBody}

// reqError is a failed request: its class and what happened.
type reqError struct {
	class errClass
	err   error
}

func (e *reqError) Error() string { return classNames[e.class] + ": " + e.err.Error() }

func newClient(addr, host, method, pathHead, pathTail string, hasID, keepAlive bool, timeout time.Duration) *client {
	conn := ""
	if !keepAlive {
		conn = "Connection: close\r\n"
	}
	tail := pathTail + " HTTP/1.1\r\nHost: " + host + "\r\nUser-Agent: dbbench-loadgen\r\n" + conn
	return &client{
		addr:      addr,
		keepAlive: keepAlive,
		timeout:   timeout,
		reqHead:   []byte(method + " " + pathHead),
		reqTail:   []byte(tail),
		hasID:     hasID,
		post:      method == "POST",
		req:       make([]byte, 0, len(pathHead)+len(tail)+256),
		dial:      net.Dialer{},
	}
}

// response is what do learned about one response.
type response struct {
	status int
	kept   bool   // the caller asked for the body
	body   []byte // the body, when kept
}

// connect opens the connection if there is none.
func (c *client) connect(deadline time.Time) error {
	c.finish()
	if c.nc != nil {
		return nil
	}
	d := c.dial
	d.Deadline = deadline
	nc, err := d.Dial("tcp", c.addr)
	if err != nil {
		return &reqError{classConnect, err}
	}
	if c.reg != nil && !c.reg(nc) {
		nc.Close()
		return &reqError{classConnect, errStopped}
	}
	c.nc = nc
	if c.br == nil {
		c.br = bufio.NewReaderSize(nc, 16<<10)
	} else {
		c.br.Reset(nc)
	}
	return nil
}

func (c *client) close() {
	if c.spent && !c.keepAlive {
		// Wait for the server's FIN (it closes after a "Connection: close" answer) so
		// that the server, not us, holds the TIME_WAIT: thousands of connections a
		// second would otherwise use up the local ports. The request's deadline bounds
		// the wait.
		_, _ = c.br.Discard(1)
	}
	c.spent = false
	if c.nc != nil {
		c.nc.Close()
		c.nc = nil
		if c.reg != nil {
			c.reg(nil)
		}
	}
}

// do sends request q and reads the whole response; now is the time it starts.
// keepBody(status) says whether the body is wanted (for a check); otherwise it is
// skipped. Any error leaves the connection closed, so the next request starts clean.
func (c *client) do(q Request, now time.Time, keepBody func(status int) bool) (response, error) {
	var deadline time.Time
	if c.timeout > 0 {
		deadline = now.Add(c.timeout)
	}
	if err := c.connect(deadline); err != nil {
		return response{}, err
	}
	if c.timeout > 0 {
		if err := c.nc.SetDeadline(deadline); err != nil {
			c.close()
			return response{}, &reqError{classWrite, err}
		}
	}
	// A cancel that came between connect and SetDeadline had its past deadline
	// overwritten just now; look again so the run still stops at once.
	if c.stop != nil && c.stop.Load() {
		c.close()
		return response{}, &reqError{classWrite, errStopped}
	}
	c.req = append(c.req[:0], c.reqHead...)
	if c.hasID {
		c.req = strconv.AppendUint(c.req, uint64(q.ID), 10)
	}
	c.req = append(c.req, c.reqTail...)
	c.appendEnd(q)
	if _, err := c.nc.Write(c.req); err != nil {
		c.close()
		return response{}, &reqError{classify(err, classWrite), err}
	}
	resp, closeAfter, err := c.read(keepBody)
	if err != nil {
		c.close()
		return response{}, &reqError{classify(err, classRead), err}
	}
	c.spent = closeAfter
	return resp, nil
}

// finish closes a connection that carried its last response. The worker calls it
// after taking the time, so that closing counts in no request's latency.
func (c *client) finish() {
	if c.spent {
		c.close()
	}
}

// classify tells a timeout from other failures of a read or write.
func classify(err error, otherwise errClass) errClass {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded) {
		return classTimeout
	}
	return otherwise
}

var (
	errMalformed = errors.New("malformed response")
	errStopped   = errors.New("run stopped")
)

// read parses one response. closeAfter says the connection cannot carry another.
func (c *client) read(keepBody func(status int) bool) (resp response, closeAfter bool, err error) {
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return resp, true, eofIsUnexpected(err, "status line")
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return resp, true, fmt.Errorf("%w: status line %q", errMalformed, trim(line))
	}
	http10 := line[7] == '0'
	resp.status, err = atoi3(line[9:12])
	if err != nil {
		return resp, true, fmt.Errorf("%w: status line %q", errMalformed, trim(line))
	}
	closeAfter = http10 || !c.keepAlive
	length := int64(-1)
	chunked := false
	for {
		line, err = c.br.ReadSlice('\n')
		if err != nil {
			return resp, true, eofIsUnexpected(err, "headers")
		}
		line = trim(line)
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			return resp, true, fmt.Errorf("%w: header %q", errMalformed, line)
		}
		name, value := line[:colon], bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Length")):
			n, perr := strconv.ParseInt(string(value), 10, 64)
			if perr != nil || n < 0 {
				return resp, true, fmt.Errorf("%w: Content-Length %q", errMalformed, value)
			}
			length = n
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.EqualFold(value, []byte("chunked"))
		case bytes.EqualFold(name, []byte("Connection")):
			if bytes.EqualFold(value, []byte("close")) {
				closeAfter = true
			} else if http10 && bytes.EqualFold(value, []byte("keep-alive")) && c.keepAlive {
				closeAfter = false
			}
		}
	}
	keep := keepBody != nil && keepBody(resp.status)
	c.body = c.body[:0]
	switch {
	case resp.status < 200 || resp.status == 204 || resp.status == 304:
		// no body
	case chunked:
		err = c.readChunked(keep)
	case length >= 0:
		err = c.readN(length, keep)
	default:
		// Delimited by the end of the connection.
		err = c.readN(-1, keep)
		closeAfter = true
	}
	if err != nil {
		return resp, true, err
	}
	if keep {
		resp.kept, resp.body = true, c.body
	}
	return resp, closeAfter, nil
}

// readN reads n body bytes (n < 0: up to EOF), into c.body if keep.
func (c *client) readN(n int64, keep bool) error {
	if n < 0 {
		if !keep {
			_, err := io.Copy(io.Discard, c.br)
			return err
		}
		b, err := io.ReadAll(c.br)
		c.body = append(c.body, b...)
		return err
	}
	if !keep {
		_, err := c.br.Discard(int(n))
		return eofIsUnexpected(err, "body")
	}
	start := len(c.body)
	c.body = slices.Grow(c.body, int(n))[:start+int(n)]
	_, err := io.ReadFull(c.br, c.body[start:])
	return eofIsUnexpected(err, "body")
}

func (c *client) readChunked(keep bool) error {
	for {
		line, err := c.br.ReadSlice('\n')
		if err != nil {
			return eofIsUnexpected(err, "chunk size")
		}
		line = trim(line)
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i] // chunk extensions
		}
		size, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || size < 0 {
			return fmt.Errorf("%w: chunk size %q", errMalformed, line)
		}
		if size == 0 {
			for { // trailers, up to the empty line
				line, err := c.br.ReadSlice('\n')
				if err != nil {
					return eofIsUnexpected(err, "trailer")
				}
				if len(trim(line)) == 0 {
					return nil
				}
			}
		}
		if err := c.readN(size, keep); err != nil {
			return err
		}
		line, err = c.br.ReadSlice('\n')
		if err != nil {
			return eofIsUnexpected(err, "chunk end")
		}
		if len(trim(line)) != 0 {
			return fmt.Errorf("%w: chunk not followed by CRLF", errMalformed)
		}
	}
}

func eofIsUnexpected(err error, where string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	if errors.Is(err, bufio.ErrBufferFull) {
		err = fmt.Errorf("%w: %s longer than the read buffer", errMalformed, where)
	}
	return fmt.Errorf("reading %s: %w", where, err)
}

func trim(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

func atoi3(b []byte) (int, error) {
	n := 0
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, errMalformed
		}
		n = n*10 + int(ch-'0')
	}
	if n < 100 {
		return 0, errMalformed
	}
	return n, nil
}
