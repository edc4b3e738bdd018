package servers

import "testing"

func TestHostPort(t *testing.T) {
	for host, want := range map[string]int{"127.0.0.1:54321": 54321, "[::1]:3307": 3307, "localhost": 0, "10.77.3.2": 0} {
		if got := hostPort(host); got != want {
			t.Errorf("hostPort(%q) = %d, want %d", host, got, want)
		}
	}
}
