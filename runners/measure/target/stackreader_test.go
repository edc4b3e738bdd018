package target

import (
	"os"
	"path/filepath"
	"testing"

	"dbbench/runners/measure/profile"
)

// The reader returns what each .collapsed file gained since the previous read, whole
// lines only, merged over files and weighed in nanoseconds.
func TestStackReaderReturnsWhatWasAdded(t *testing.T) {
	dir := t.TempDir()
	r := &stackReader{dir: dir, seen: map[string]*profile.Profile{}}
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	read := func() map[string]int64 {
		t.Helper()
		p, err := r.read()
		if err != nil {
			t.Fatal(err)
		}
		if p.Unit != "nanoseconds" {
			t.Errorf("unit %q, want nanoseconds", p.Unit)
		}
		out := map[string]int64{}
		for _, s := range p.Stacks {
			out[filepath.Join(s.Frames...)] = s.Weight / int64(phpProfilePeriod)
		}
		return out
	}
	write("1.collapsed", ";index.php;App::handle 3\n;index.php;App::db 1\n")
	write("2.collapsed", "worker.php;App::handle 2\nworker.php;App::db 5") // the last line is still being written
	if got := read(); len(got) != 3 || got["index.php/App::handle"] != 3 || got["index.php/App::db"] != 1 ||
		got["worker.php/App::handle"] != 2 {
		t.Errorf("first read: %v", got)
	}
	write("1.collapsed", ";index.php;App::handle 5\n;index.php;App::db 1\n")
	write("2.collapsed", "worker.php;App::handle 2\nworker.php;App::db 5\n")
	if got := read(); len(got) != 2 || got["index.php/App::handle"] != 2 || got["worker.php/App::db"] != 5 {
		t.Errorf("second read: %v", got)
	}
	if got := read(); len(got) != 0 {
		t.Errorf("nothing added: %v", got)
	}
}
