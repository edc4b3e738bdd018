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
	data := map[string]any{"Host": h.String(), "KnownHosts": kh, "Entry": entry, "Port": h.Port, "Name": h.Name, "User": h.User}
	switch {
	case strings.Contains(said, "REMOTE HOST IDENTIFICATION HAS CHANGED"):
		return fmt.Errorf("%w: %s", ErrHostKey, say("host-key-changed", data))
	case strings.Contains(said, "Host key verification failed"), strings.Contains(said, "host key is known"):
		return fmt.Errorf("%w: %s", ErrHostKey, say("host-key-unknown", data))
	case strings.Contains(said, "Permission denied"):
		data["Key"] = h.o.Key
		if h.o.Key == "" {
			data["Key"] = "ssh's default keys"
		}
		return fmt.Errorf("%w: %s", ErrAuth, say("key-refused", data))
	}
	return fmt.Errorf("remote: cannot connect to %s: %s", h, h.masterSays())
}
