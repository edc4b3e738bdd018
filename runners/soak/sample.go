package soak

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"dbbench/runners/measure/servers"
	"dbbench/runners/measure/target"
)

// treeSample is what a process tree holds at one moment, summed over its processes.
type treeSample struct {
	Procs   int
	RSS     int64 // bytes, VmRSS summed (pages shared between processes count once each)
	Private int64 // bytes, RssAnon summed: no shared memory, no file pages
	Threads int
	FDs     int
	MaxFDs  int // the largest process's: ulimit -n is per process
	NoFile  int64
	Sockets []uint64 // inodes of the tree's sockets, for countTo
}

// sampleTree reads /proc for every pid; a process that exits meanwhile is skipped.
func sampleTree(pids []int) treeSample {
	var s treeSample
	for _, pid := range pids {
		status, err := readStatus(pid)
		if err != nil {
			continue
		}
		fds, socks, err := listFDs(pid)
		if err != nil {
			continue
		}
		s.Procs++
		s.RSS += status["VmRSS"] * 1024
		s.Private += status["RssAnon"] * 1024
		s.Threads += int(status["Threads"])
		s.FDs += fds
		s.MaxFDs = max(s.MaxFDs, fds)
		s.Sockets = append(s.Sockets, socks...)
		if n, err := noFileLimit(pid); err == nil && (s.NoFile == 0 || n < s.NoFile) {
			s.NoFile = n
		}
	}
	return s
}

// countTo counts the tree's sockets among toDB (from dbSocketInodes).
func (s treeSample) countTo(toDB map[uint64]int) int {
	n := 0
	for _, i := range s.Sockets {
		if _, ok := toDB[i]; ok {
			n++
		}
	}
	return n
}

// portsTo adds to ports the local port of each of the tree's sockets among toDB: the
// client port the database sees for each of the tree's connections.
func (s treeSample) portsTo(toDB map[uint64]int, ports map[int]bool) {
	for _, i := range s.Sockets {
		if p, ok := toDB[i]; ok {
			ports[p] = true
		}
	}
}

// readStatus reads the numeric fields of /proc/PID/status (VmRSS in kB, Threads).
func readStatus(pid int) (map[string]int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			out[k] = n
		}
	}
	return out, nil
}

// listFDs counts a process's open descriptors and lists the inodes of its sockets.
func listFDs(pid int) (fds int, sockets []uint64, err error) {
	dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
	d, err := os.Open(dir)
	if err != nil {
		return 0, nil, err
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return 0, nil, err
	}
	for _, n := range names {
		link, err := os.Readlink(dir + n)
		if err != nil {
			continue // closed while we looked
		}
		fds++
		if inode, ok := strings.CutPrefix(link, "socket:["); ok {
			if i, err := strconv.ParseUint(strings.TrimSuffix(inode, "]"), 10, 64); err == nil {
				sockets = append(sockets, i)
			}
		}
	}
	return fds, sockets, nil
}

// netPID is a process in the targets' network namespace, whose /proc/PID/net lists
// their sockets: one of theirs (in a namespace of their own on netns), else this one.
func (s *soaker) netPID() string {
	for _, tg := range s.targets {
		if pids := tg.PIDs(); len(pids) > 0 {
			return strconv.Itoa(pids[0])
		}
	}
	return "self"
}

// dbSocketInodes maps to its local port the inode of each TCP socket (IPv4 and IPv6)
// in the network namespace of process pid whose remote port is port, in any state: a
// connection the server closed that the client never did (CLOSE_WAIT) leaks as much as
// an open one. Sockets without a descriptor (TIME_WAIT) have inode 0 and are left out.
func dbSocketInodes(pid string, port int) (map[uint64]int, error) {
	out := map[uint64]int{}
	found := false
	for _, f := range []string{"/proc/" + pid + "/net/tcp", "/proc/" + pid + "/net/tcp6"} {
		file, err := os.Open(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		found = true
		err = parseTCP(file, port, out)
		file.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	if !found {
		return nil, errors.New("no /proc/net/tcp")
	}
	return out, nil
}

// parseTCP reads the lines of /proc/net/tcp ("sl local rem st … uid timeout inode"),
// adding to out the inode of every socket whose remote port is port, with its local port.
func parseTCP(r io.Reader, port int, out map[uint64]int) error {
	sc := bufio.NewScanner(r)
	sc.Scan() // header
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 10 {
			continue
		}
		p, err := hexPort(f[2])
		if err != nil {
			return fmt.Errorf("remote %w", err)
		}
		local, err := hexPort(f[1])
		if err != nil {
			return fmt.Errorf("local %w", err)
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil {
			return fmt.Errorf("inode %q: %w", f[9], err)
		}
		if p == port && inode != 0 {
			out[inode] = local
		}
	}
	return sc.Err()
}

// hexPort is the port of an address of /proc/net/tcp ("0100007F:0CEA").
func hexPort(addr string) (int, error) {
	_, hex, ok := strings.Cut(addr, ":")
	if !ok {
		return 0, fmt.Errorf("address %q", addr)
	}
	p, err := strconv.ParseUint(hex, 16, 16)
	if err != nil {
		return 0, fmt.Errorf("port %q: %w", hex, err)
	}
	return int(p), nil
}

// noFileLimit is the soft RLIMIT_NOFILE of a process, from /proc/PID/limits.
func noFileLimit(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/limits")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return 0, errors.New("no Max open files line")
}

// sample takes one round: the database first (its Threads_connected is what a target's
// connections are measured against), then every target's processes, then the TCP table
// once, then the Go targets' admin listeners.
//
// A target's connections to the database are its sockets found in the TCP table with
// the database's remote port. The table is read once per round, after every target's
// descriptors are listed: it holds every socket of the machine, TIME_WAIT included
// (over ten thousand lines under a soak's load, a few tenths of a second to read). So a
// connection is counted when it lived across that moment: a leaked one always does; a
// per-request one that lives milliseconds seldom does.
func (s *soaker) sample(ctx context.Context, t float64) { s.sampleInto(ctx, s.file, t) }

// sampleInto samples every role into the series of f: the soak's file, or a scratch
// file (rest.go) for the samples at rest and those of the capacity phase.
func (s *soaker) sampleInto(ctx context.Context, f *File, t float64) {
	sctx, cancel := context.WithTimeout(ctx, s.o.Interval)
	defer cancel()
	began := time.Now()
	lim := servers.Limits{Connections: f.Settings.MaxConnections, Statements: f.Settings.MaxPreparedStmtCount, StatementsName: f.Settings.StatementsLimit}
	status, statusErr := s.server.Status(sctx, s.admin, lim)
	connsBefore, connsErr := s.server.Clients(sctx, s.admin, s.traced)
	var dbTree treeSample
	if s.db.PID != 0 {
		dbTree = sampleTree(s.server.Processes(s.db.PID))
	}
	trees := make([]treeSample, len(s.targets))
	for i, tg := range s.targets {
		trees[i] = sampleTree(tg.PIDs())
	}
	toDB, tcpErr := dbSocketInodes(s.netPID(), s.dbPort)
	connsAfter, connsAfterErr := s.server.Clients(sctx, s.admin, servers.Traced{})
	if connsErr == nil {
		connsErr = connsAfterErr
	}
	type goSample struct {
		metrics map[string]float64
		pool    *target.PoolStats
	}
	gos := make([]*goSample, len(s.targets))
	memory := make([]*float64, len(s.targets))
	for i, tg := range s.targets {
		if tg.Memory != nil {
			if m, err := tg.Memory(sctx); err == nil {
				memory[i] = &m
			}
		}
		if tg.AdminURL == "" {
			continue
		}
		m, merr := target.ReadMetrics(sctx, tg.AdminURL)
		p, perr := target.ReadPool(sctx, tg.AdminURL)
		if merr == nil && perr == nil {
			gos[i] = &goSample{m, p}
		}
	}
	if took := time.Since(began); took > s.o.Interval/2 {
		fmt.Fprintf(s.o.Log, "soak: the sample at %.0f s took %v: the machine is busy, samples may drift from the middle of the windows\n", t, took.Round(time.Millisecond))
	}
	if tcpErr != nil {
		fmt.Fprintf(s.o.Log, "soak: sample at %.0f s: database connections: %v\n", t, tcpErr)
	}
	if ctx.Err() != nil {
		return // interrupted while sampling: half a sample is not a sample
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	f.Samples++
	db := f.Database
	used := map[string]float64{} // of each limit, as its first reading counts it
	if statusErr == nil {
		for _, r := range status {
			db.addReading(t, r)
			if _, ok := used[r.Limit]; !ok && r.Limit != "" {
				used[r.Limit] = r.Value
			}
		}
	} else {
		fmt.Fprintf(s.o.Log, "soak: sample at %.0fs: %v\n", t, statusErr)
	}
	if dbTree.Procs > 0 {
		db.addTree("mariadbd_", t, dbTree)
		// A server of many processes (PostgreSQL's) counts its shared buffers once in
		// each process's RSS, rising as backends touch them: its private memory is not.
		db.add("mariadbd_private", t, float64(dbTree.Private))
	}
	if connsErr == nil && tcpErr == nil {
		s.addOutside(f, t, connsBefore, connsAfter, toDB, trees, used)
	} else if connsErr != nil {
		fmt.Fprintf(s.o.Log, "soak: sample at %.0f s: %v\n", t, connsErr)
	}
	for i, v := range f.Variants {
		ts := trees[i]
		if ts.Procs == 0 {
			if v.Died == "" {
				v.Died = fmt.Sprintf("its processes were gone at the sample at %.0f s", t)
				fmt.Fprintf(s.o.Log, "soak: %s: target died (%s)\n", v.Key, v.Died)
			}
			continue
		}
		v.addTree("", t, ts)
		v.add("processes", t, float64(ts.Procs))
		if tcpErr == nil {
			c := v.add("db_connections", t, float64(ts.countTo(toDB)))
			if statusErr == nil {
				c.Limit = &Limit{Name: "max_connections (shared by all)", Value: f.Settings.MaxConnections, Used: used["max_connections"]}
			}
		}
		if m := memory[i]; m != nil {
			v.add("runtime_memory", t, *m)
		}
		if g := gos[i]; g != nil {
			v.add("goroutines", t, g.metrics["/sched/goroutines:goroutines"])
			v.add("heap_live", t, g.metrics["/gc/heap/live:bytes"])
			v.add("pool_open", t, float64(g.pool.OpenConnections))
			v.add("pool_in_use", t, float64(g.pool.InUse))
			waits := Point{T: t, Value: float64(g.pool.WaitCount)}
			if prev, ok := f.waits[i]; ok && t > prev.T {
				v.add("pool_waits", t, (waits.Value-prev.Value)/(t-prev.T))
			}
			if f.waits == nil {
				f.waits = map[int]Point{}
			}
			f.waits[i] = waits
		}
	}
}

// addOutside records what no target holds (outside.go): the connections, and their
// statements and memory where the server tells them.
func (s *soaker) addOutside(f *File, t float64, before, after map[int64]servers.Client, toDB map[uint64]int, trees []treeSample, used map[string]float64) {
	ports := map[int]bool{}
	for _, ts := range trees {
		ts.portsTo(toDB, ports)
	}
	if !seesPorts(before, ports) {
		if !s.noPorts {
			s.noPorts = true
			fmt.Fprintln(s.o.Log, say("log-no-ports", map[string]any{"Ports": len(ports)}))
		}
		return
	}
	conns, stmts, memory := outside(before, after, ports)
	st := f.Settings
	f.Database.add("outside_connections", t, float64(conns)).Limit = &Limit{Name: "max_connections", Value: st.MaxConnections, Used: used["max_connections"]}
	if s.traced.Statements {
		f.Database.add("outside_statements", t, float64(stmts)).Limit = &Limit{Name: st.StatementsLimit, Value: st.MaxPreparedStmtCount, Used: used[st.StatementsLimit]}
	}
	if s.traced.Memory {
		f.Database.add("outside_memory", t, float64(memory))
	}
}
