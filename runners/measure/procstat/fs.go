package procstat

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// FS is a view of /proc: this host's (Local), or Files, what another host's held when
// it was read (DumpScript, run there over SSH, prints it in one go).
type FS interface {
	ReadFile(name string) ([]byte, error)
	// ReadDir lists the names in directory name.
	ReadDir(name string) ([]string, error)
}

// Local is this host's /proc.
var Local FS = local{}

type local struct{}

func (local) ReadFile(name string) ([]byte, error) { return os.ReadFile(name) }

func (local) ReadDir(name string) ([]string, error) {
	d, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.Readdirnames(-1)
}

// Files is the /proc files of a few processes as another host printed them: path to
// contents. A file it did not print does not exist.
type Files map[string][]byte

func (f Files) ReadFile(name string) ([]byte, error) {
	b, ok := f[name]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return b, nil
}

func (f Files) ReadDir(name string) ([]string, error) {
	var out []string
	prefix := strings.TrimSuffix(name, "/") + "/"
	for p := range f {
		if rest, ok := strings.CutPrefix(p, prefix); ok {
			first, _, _ := strings.Cut(rest, "/")
			if !slices.Contains(out, first) {
				out = append(out, first)
			}
		}
	}
	if len(out) == 0 {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	slices.Sort(out)
	return out, nil
}

// DumpScript is a POSIX shell script that prints, for the PIDs given as its arguments,
// every /proc file TakeCountsIn and PeakRSSIn read, each after a line "== PATH":
// what ReadDump reads back. A process or thread that is gone is left out.
const DumpScript = `for p in "$@"; do
  for f in /proc/$p/stat /proc/$p/io /proc/$p/status /proc/$p/task/*/status /proc/$p/task/*/schedstat; do
    [ -r "$f" ] || continue
    c=$(cat "$f" 2>/dev/null) || continue
    printf '== %s\n%s\n' "$f" "$c"
  done
done
`

// ReadDump reads what DumpScript printed.
func ReadDump(r io.Reader) (Files, error) {
	out := Files{}
	var name string
	var body bytes.Buffer
	flush := func() {
		if name != "" {
			out[name] = bytes.Clone(body.Bytes())
		}
		body.Reset()
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "== /proc/"); ok {
			flush()
			name = "/proc/" + path.Clean(p)
			continue
		}
		if name == "" {
			return nil, fmt.Errorf("procstat: dump starts with %q, not a '== /proc/…' line", line)
		}
		body.WriteString(line + "\n")
	}
	flush()
	return out, sc.Err()
}
