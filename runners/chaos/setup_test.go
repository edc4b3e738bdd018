package chaos

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"dbbench/runners/measure/dbtest"
)

// rootSQL runs statements as the embedded server's root, through its socket.

// refusingAddr is a loopback address that refuses connections for as long as the test
// runs: a socket bound there that never listens. Unlike a port listened on and closed
// again, nobody can start listening there meanwhile, and no outgoing connection can take
// it as its own port (a connection from a port to itself would even succeed).
func refusingAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}

// 4. Bad set-ups: each must end in one clear line before any load is sent.
func TestBadSetup(t *testing.T) {
	db := dbtest.Start(t, 1000)
	keep := map[int]bool{db.PID: true}
	addr := db.Config.Addr

	// A port that is taken, by something that accepts connections and never speaks.
	mute, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	go func() {
		for {
			c, err := mute.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	closedAddr := refusingAddr(t)

	db.RootSQL(t, "SET GLOBAL max_connections = 20")
	defer db.RootSQL(t, "SET GLOBAL max_connections = 1000")

	cases := []struct {
		name, injected, dsn, want string
	}{
		{"database port taken", "dsn at a port held by a mute listener", "dbbench:Not-The-Password-1@tcp(" + mute.Addr().String() + ")/dbbench", `cannot reach`},
		{"database unreachable", "dsn at a closed port", "dbbench:Not-The-Password-1@tcp(" + closedAddr + ")/dbbench", `cannot reach .*connection refused`},
		{"wrong password", "dsn with a wrong password", "dbbench:Wrong-Pass-3141@tcp(" + addr + ")/dbbench", `cannot reach .*Access denied`},
		{"max_connections too low", "server max_connections 20, run needs 74", db.DSN(), `max_connections is 20 but this run needs 74`},
	}
	for _, c := range cases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			tmp := newTmp(t)
			out := filepath.Join(tmp, "run")
			p := dbbench(t, tmp, runArgs(out, goRaw, "--provider", "dsn", "--dsn", c.dsn)...)
			code := p.wait(60 * time.Second)
			line := p.oneErrorLine(c.want)
			if code == 0 {
				t.Error("exit status 0")
			}
			if strings.Contains(p.errText(), "[check") || strings.Contains(p.errText(), " slice ") {
				t.Errorf("a target was started or load sent:\n%s", p.errText())
			}
			if strings.Contains(p.errText()+p.outText(), "Wrong-Pass-3141") {
				t.Error("the password is in the output")
			}
			res, reps := written(t, out)
			if res != nil && reps != 0 {
				t.Errorf("%d repetitions measured", reps)
			}
			left := leftovers(t, tmp, keep)
			table.Add(Row{c.name, c.injected, fmt.Sprintf("exit %d before any load: %q", code, tail(cause(line), 80)), left, "nothing measured (none expected)"})
		})
	}

	// A target port that is taken: dbbench serve on an address already listened on.
	for _, v := range []string{"lang=go/layer=raw/stmt=interpolate/conn=persistent/pool=8", "lang=php/layer=raw/stmt=interpolate/conn=persistent/pool=4"} {
		lang := strings.SplitN(strings.TrimPrefix(v, "lang="), "/", 2)[0]
		t.Run("target_port_taken_"+lang, func(t *testing.T) {
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			tmp := newTmp(t)
			p := dbbench(t, tmp, "serve", v, "--dsn-file", db.DSNFile, "--listen", taken.Addr().String())
			code := p.wait(60 * time.Second)
			line := p.oneErrorLine(`address already in use|in use`)
			if code == 0 {
				t.Error("exit status 0")
			}
			left := leftovers(t, tmp, keep)
			table.Add(Row{"target port taken (" + lang + ")", "serve --listen on a taken port", fmt.Sprintf("exit %d: %q", code, tail(line, 80)), left, "-"})
		})
	}
	_ = context.Background
	_ = os.Getpid
}
