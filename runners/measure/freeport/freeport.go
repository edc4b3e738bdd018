// Package freeport picks loopback TCP ports for the servers dbbench starts.
//
// A port from listening on ":0" comes out of the kernel's ephemeral range, the range
// outgoing connections also take their source ports from. Between picking such a port
// and the server binding it, one of the thousands of connections a run opens can take
// it: a quick run once lost a Go target that way ("bind: address already in use" on
// its admin port). Ports below the ephemeral range are never given to outgoing
// connections, so only another listener can take them; callers still retry for that.
package freeport

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
)

// rangeFile holds the kernel's ephemeral port range, "32768\t60999" by default.
const rangeFile = "/proc/sys/net/ipv4/ip_local_port_range"

// lowest is where the search starts: above the ports well-known services register.
const lowest = 10000

// Loopback returns a port nobody listens on right now on 127.0.0.1, below the
// ephemeral range when that leaves room, else one the kernel picks.
func Loopback() (int, error) { return On("127.0.0.1") }

// On is Loopback for another address of this host (a server that other hosts reach).
func On(ip string) (int, error) {
	hi := 0
	if b, err := os.ReadFile(rangeFile); err == nil {
		hi, _ = below(string(b))
	}
	if hi-lowest >= 1000 {
		for range 100 {
			p := lowest + rand.IntN(hi-lowest)
			if l, err := net.Listen("tcp", net.JoinHostPort(ip, strconv.Itoa(p))); err == nil {
				l.Close()
				return p, nil
			}
		}
	}
	l, err := net.Listen("tcp", net.JoinHostPort(ip, "0"))
	if err != nil {
		return 0, fmt.Errorf("find a free port on %s: %w", ip, err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Addr is Loopback as "127.0.0.1:PORT".
func Addr() (string, error) {
	p, err := Loopback()
	if err != nil {
		return "", err
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(p)), nil
}

// below parses the range file's "LOW HIGH" and returns LOW: the first port the kernel
// may hand out on its own.
func below(s string) (int, error) {
	f := strings.Fields(s)
	if len(f) != 2 {
		return 0, fmt.Errorf("%s: want two numbers, got %q", rangeFile, s)
	}
	lo, err := strconv.Atoi(f[0])
	if err != nil {
		return 0, fmt.Errorf("%s: %w", rangeFile, err)
	}
	return lo, nil
}
