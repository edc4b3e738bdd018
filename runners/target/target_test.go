package target

import (
	"context"
	"errors"
	"io"
	"testing"

	"dbbench/runners/matrix"
)

// Start picks again when a port it picked was taken before the target bound it, and
// only then: a port the caller named, or any other failure, is reported at once.
func TestStartRetriesOnlyPortsItPicked(t *testing.T) {
	inUse := errors.New("gotarget: --admin-listen 127.0.0.1:38991: listen tcp 127.0.0.1:38991: bind: address already in use")
	other := errors.New("no Go target at bin/gotarget")
	goV := matrix.Variant{Lang: "go", Layer: "hello", Stmt: "none", Conn: "none", Pool: 1}
	phpV := matrix.Variant{Lang: "php", Layer: "hello", Stmt: "none", Conn: "none", Pool: 1}
	for _, c := range []struct {
		name      string
		v         matrix.Variant
		listen    string
		fails     []error
		wantCalls int
		wantOK    bool
	}{
		{"go, taken twice then free", goV, "", []error{inUse, inUse}, 3, true},
		{"go, named listen: its admin port is still picked", goV, "127.0.0.1:8080", []error{inUse}, 2, true},
		{"go, taken every time", goV, "", []error{inUse, inUse, inUse, inUse}, 3, false},
		{"php, picked port", phpV, "127.0.0.1:0", []error{inUse}, 2, true},
		{"php, named port taken", phpV, "127.0.0.1:8080", []error{inUse}, 1, false},
		{"another failure", goV, "", []error{other}, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			calls := 0
			startOnce = func(context.Context, matrix.Variant, Options) (*Target, error) {
				calls++
				if calls <= len(c.fails) {
					return nil, c.fails[calls-1]
				}
				return &Target{}, nil
			}
			defer func() { startOnce = start }()
			tg, err := Start(context.Background(), c.v, Options{Listen: c.listen, Log: io.Discard})
			if calls != c.wantCalls || (err == nil) != c.wantOK || (tg != nil) != c.wantOK {
				t.Fatalf("%d calls, target %v, err %v; want %d calls, ok %v", calls, tg, err, c.wantCalls, c.wantOK)
			}
		})
	}
}
