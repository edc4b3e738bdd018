package topology

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sys/unix"
)

// netnsDir is where iproute2 keeps named namespaces (bind mounts of their nsfs files).
const netnsDir = "/run/netns"

// inNetns runs f on an OS thread that has entered the named namespace, so that the
// sockets f makes belong to it: a socket keeps the namespace it was made in, whichever
// thread uses it later. The runner (and its load generator) stays in the root
// namespace; only these sockets cross over.
func inNetns(name string, f func() error) error {
	ns, err := os.Open(filepath.Join(netnsDir, name))
	if err != nil {
		return fmt.Errorf("topology: namespace %s: %w", name, err)
	}
	defer ns.Close()
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		home, err := os.Open("/proc/thread-self/ns/net")
		if err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("topology: %w", err)
			return
		}
		defer home.Close()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			runtime.UnlockOSThread()
			done <- fmt.Errorf("topology: enter %s: %w", name, err)
			return
		}
		ferr := f()
		// A thread that cannot go home stays locked: Go ends it with this goroutine
		// rather than run other goroutines in the wrong namespace.
		if unix.Setns(int(home.Fd()), unix.CLONE_NEWNET) == nil {
			runtime.UnlockOSThread()
		}
		done <- ferr
	}()
	return <-done
}
