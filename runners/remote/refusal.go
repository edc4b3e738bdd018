package remote

import (
	"errors"
	"fmt"
	"strings"
)

// ErrHostKey and ErrAuth mark a host refused for what the user must fix: its key is not
// known (or not the one known), or it refused ours.
var (
	ErrHostKey = errors.New("host key not known")
	ErrAuth    = errors.New("key refused")
)

// refusal says why the master ended before the connection was up, in one line.
func (h *Host) refusal() error {
	h.mu.Lock()
	said := h.stderr.String()
	h.mu.Unlock()
	kh := h.o.KnownHosts
	if kh == "" {
		kh = "~/.ssh/known_hosts"
	}
	entry := h.Name
	if h.Port != 22 {
		entry = fmt.Sprintf("[%s]:%d", h.Name, h.Port)
	}
	switch {
	case strings.Contains(said, "REMOTE HOST IDENTIFICATION HAS CHANGED"):
		return fmt.Errorf("%w: %s: the host's key is not the one %s holds for %s: if the host was reinstalled, check its new fingerprint, then replace the entry (ssh-keygen -R '%s' -f %s)",
			ErrHostKey, h, kh, entry, entry, kh)
	case strings.Contains(said, "Host key verification failed"), strings.Contains(said, "host key is known"):
		return fmt.Errorf("%w: %s: %s has no key for %s: check the host's fingerprint, then add it (ssh-keyscan -p %d %s >> %s)",
			ErrHostKey, h, kh, entry, h.Port, h.Name, kh)
	case strings.Contains(said, "Permission denied"):
		key := h.o.Key
		if key == "" {
			key = "ssh's default keys"
		}
		return fmt.Errorf("%w: %s refused %s (key authentication only): add its public key to %s's ~/.ssh/authorized_keys there, or give another with --ssh-key",
			ErrAuth, h, key, h.User)
	}
	return fmt.Errorf("remote: cannot connect to %s: %s", h, h.masterSays())
}
