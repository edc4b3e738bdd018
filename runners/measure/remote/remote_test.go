package remote

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestParseURL(t *testing.T) {
	u, h, p, err := ParseURL("ssh://app@10.0.0.5:2222")
	if err != nil || u != "app" || h != "10.0.0.5" || p != 2222 {
		t.Fatalf("ParseURL = %q %q %d %v", u, h, p, err)
	}
	if _, _, p, _ := ParseURL("ssh://app@host"); p != 22 {
		t.Fatalf("default port %d", p)
	}
	for _, bad := range []string{"app@host", "http://app@host", "ssh://host", "ssh://app:pw@host", "ssh://app@host:0", "ssh://app@host/x", "ssh://app@host:99999"} {
		if _, _, _, err := ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) accepted", bad)
		}
	}
	// A password typed into the URL is refused, and the error does not repeat it.
	for _, bad := range []string{"ssh://app:Sesame4711@host", "ssh://app:Sesame4711@host:x", "app:Sesame4711@host%zz"} {
		if _, _, _, err := ParseURL(bad); err == nil || strings.Contains(err.Error(), "Sesame4711") {
			t.Errorf("ParseURL(%q): %v", bad, err)
		}
	}
}

func TestStaleDirs(t *testing.T) {
	name, _ := os.Hostname()
	listing := "/tmp/dbbench-app-a " + name + " 999999999\n/tmp/dbbench-app-b " + name + " " + strconv.Itoa(os.Getpid()) + "\n/tmp/dbbench-app-c other 999999999\n"
	if got := staleDirs(listing, ownerTag()); len(got) != 1 || got[0].dir != "/tmp/dbbench-app-a" {
		t.Fatalf("staleDirs = %v", got)
	}
}
