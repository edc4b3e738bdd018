// Package precise sleeps until a moment to within tens of microseconds without holding
// the Go runtime's processor (P) while it waits. The delay proxy forwards each chunk
// with it, and the load generator sends each open-loop request with it.
//
// The obvious ways fail, measured (README.md): a Go timer, when the process is
// otherwise idle, is waited for in epoll with a timeout of whole milliseconds, so a
// sub-millisecond wait is rounded up to a whole one; nanosleep is exact but holds its
// goroutine's P for the whole sleep, so with as many Ps as cores a few sleepers starve
// every other goroutine of the process. A Timer reads a timerfd through Go's network
// poller: the kernel's high-resolution timer fires it, and a goroutine blocked on it
// holds no P.
package precise

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// Timer is one goroutine's timerfd. A nil *Timer is valid and sleeps with Go's timer
// (late by up to a millisecond, but never holding a P): what New's caller keeps when the
// process is out of descriptors.
type Timer struct {
	fd  int
	f   *os.File // registered with the poller, which parks a Read instead of blocking a thread
	buf [8]byte
}

// New opens a timer; Close it when done.
func New() (*Timer, error) {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("precise: timerfd: %w", err)
	}
	return &Timer{fd: fd, f: os.NewFile(uintptr(fd), "timerfd")}, nil
}

// SleepUntil returns at t, at once when t has passed. It cannot be interrupted: callers
// that must stop early wait the bulk with a Go timer and only the end with this.
func (p *Timer) SleepUntil(t time.Time) {
	wait := time.Until(t)
	if wait <= 0 {
		return
	}
	if p == nil {
		time.Sleep(wait)
		return
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(wait.Nanoseconds())}
	if err := unix.TimerfdSettime(p.fd, 0, &spec, nil); err != nil {
		time.Sleep(wait) // not expected; late beats never
		return
	}
	if _, err := p.f.Read(p.buf[:]); err != nil {
		time.Sleep(time.Until(t))
	}
}

// Close releases the timerfd; a nil Timer has none.
func (p *Timer) Close() {
	if p != nil {
		p.f.Close()
	}
}
