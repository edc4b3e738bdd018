package roundtrip

import (
	"io"
	"maps"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"dbbench/dsn/protocol"
	"dbbench/runners/measure/dbtest"
)

// The proxy says where the commands it counted came from, connections opened before a
// Reset included: a pool's connections outlive the reset before a capture.
func TestProxyNamesWhereCommandsCameFrom(t *testing.T) {
	up, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	go func() {
		for {
			c, err := up.Accept()
			if err != nil {
				return
			}
			go io.Copy(io.Discard, c)
		}
	}()
	p, err := StartProxyOn("127.0.0.1", up.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	c, err := d.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ping := []byte{1, 0, 0, 0, 0x0e} // one packet, sequence 0: COM_PING
	c.Write(ping)
	waitCount(t, p, "Ping", 1)
	p.Reset()
	if got := p.From(); len(got) != 0 {
		t.Fatalf("From after Reset = %v", got)
	}
	c.Write(ping)
	waitCount(t, p, "Ping", 1)
	if got := p.From(); !slices.Equal(got, []string{"127.0.0.2"}) {
		t.Fatalf("From = %v, want [127.0.0.2]", got)
	}
}

func waitCount(t *testing.T, p *Proxy, name string, n int64) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); p.Counts()[name] < n; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s counted %d times, want %d", name, p.Counts()[name], n)
		}
	}
}

// The proxy names each connection's authentication path and counts its handshake's
// round trips: MariaDB's mysql_native_password in one; MySQL 8's caching_sha2_password
// in three the first time a user connects (the full path: the client fetches the RSA
// key and sends the password encrypted) and in one once the server has cached the
// password's hash; a connection that asks for TLS is counted as such, unread.
func TestProxyNamesEachConnectionsAuthenticationPath(t *testing.T) {
	connect := func(t *testing.T, p *Proxy, dsn string, params string) {
		t.Helper()
		viaProxy, err := RewriteDSN(dsn, p.Addr())
		if err != nil {
			t.Fatal(err)
		}
		if params != "" {
			viaProxy += map[bool]string{true: "&", false: "?"}[strings.Contains(viaProxy, "?")] + params
		}
		pool := open(t, viaProxy, true)
		if err := pool.Ping(); err != nil {
			t.Fatal(err)
		}
		pool.Close()
	}
	expect := func(t *testing.T, p *Proxy, want map[string]int64, trips int64) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			got, gotTrips := p.Auth()
			if maps.Equal(got, want) && gotTrips == trips {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("auth paths %v in %d round trips, want %v in %d", got, gotTrips, want, trips)
			}
		}
	}
	t.Run("mariadb", func(t *testing.T) {
		db := dbtest.Start(t, 10)
		p, err := StartProxyOn("127.0.0.1", db.Config.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		connect(t, p, db.DSN(), "")
		connect(t, p, db.DSN(), "")
		expect(t, p, map[string]int64{"mysql_native_password": 2}, 2)
	})
	t.Run("mysql", func(t *testing.T) {
		db := dbtest.StartMySQL(t, 10)
		db.RootSQL(t, "CREATE USER 'fresh'@'127.0.0.1' IDENTIFIED BY 'fresh-pw-1'")
		p, err := StartProxyOn("127.0.0.1", db.Config.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		fresh := "fresh:fresh-pw-1@tcp(" + db.Config.Addr + ")/"
		connect(t, p, fresh, "")
		expect(t, p, map[string]int64{protocol.PathFullRSA: 1}, 3)
		connect(t, p, fresh, "")
		expect(t, p, map[string]int64{protocol.PathFullRSA: 1, protocol.PathCached: 1}, 4)
		p.Reset()
		connect(t, p, fresh, "tls=skip-verify")
		expect(t, p, map[string]int64{protocol.PathTLS: 1}, 1)
	})
}
