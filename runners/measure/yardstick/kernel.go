package yardstick

import (
	"fmt"
	"io"
	"net"
	"sync"
	"time"
)

// The kernel's part. Work sees user-space compute only, but a request also pays the
// kernel: system calls, loopback TCP, waking the thread that reads. A new kernel (or
// its mitigations) can move those alone: on one kernel change the fixed work read
// 0.97–1.01× while the HTTP stack alone (hello) read 0.72–0.86× (runners/judge/compare/
// README.md, "The kernel's part"). One kernel trial is what a request's transport
// costs, with no code under test: echo rounds of a small message over one loopback TCP
// connection, each a write and a read on either side and a wake-up of the other side.

// KernelDescription says what one kernel trial does, for results.json's
// Yardstick.KernelWork: trials of different work are not comparable.
const KernelDescription = "kernel yardstick v1: 4000 echo rounds of 64 bytes over one loopback TCP connection " +
	"(a write and a read on each side, 4 system calls and 2 wake-ups a round), wall-clock seconds"

const (
	echoRounds = 4000
	echoBytes  = 64
)

var kernelMu sync.Mutex

// KernelWork runs one kernel trial and returns its wall-clock time: lower is a faster
// machine. Calls are serialised, as Work's are.
func KernelWork() (time.Duration, error) {
	kernelMu.Lock()
	defer kernelMu.Unlock()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("kernel yardstick: listen on loopback: %w", err)
	}
	defer ln.Close()
	echoed := make(chan error, 1)
	go func() { echoed <- echo(ln) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return 0, fmt.Errorf("kernel yardstick: dial loopback: %w", err)
	}
	defer c.Close()
	msg, got := make([]byte, echoBytes), make([]byte, echoBytes)
	start := time.Now()
	for range echoRounds {
		if _, err := c.Write(msg); err != nil {
			return 0, fmt.Errorf("kernel yardstick: write: %w", err)
		}
		if _, err := io.ReadFull(c, got); err != nil {
			return 0, fmt.Errorf("kernel yardstick: read: %w", err)
		}
	}
	d := time.Since(start)
	c.Close()
	if err := <-echoed; err != nil {
		return 0, err
	}
	return d, nil
}

// echo accepts one connection and sends back what it reads until the client closes it.
func echo(ln net.Listener) error {
	c, err := ln.Accept()
	if err != nil {
		return fmt.Errorf("kernel yardstick: accept: %w", err)
	}
	defer c.Close()
	buf := make([]byte, echoBytes)
	for {
		if _, err := io.ReadFull(c, buf); err != nil {
			return nil // the client closed: the trial is over
		}
		if _, err := c.Write(buf); err != nil {
			return fmt.Errorf("kernel yardstick: echo: %w", err)
		}
	}
}

// ReadKernel runs n timed kernel trials after one untimed warm-up and returns their
// times in seconds; nil with the error when loopback TCP fails (the run goes on without
// the kernel's part, and compare says it lacks it).
func ReadKernel(n int) ([]float64, error) {
	if _, err := KernelWork(); err != nil {
		return nil, err
	}
	out := make([]float64, n)
	for i := range out {
		d, err := KernelWork()
		if err != nil {
			return nil, err
		}
		out[i] = d.Seconds()
	}
	return out, nil
}
