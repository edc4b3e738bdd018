package procstat

import (
	"errors"
	"fmt"
	"time"
)

// A Sample is the CPU time of a process tree at one moment. Take one before and one
// after a repetition; end.Sub(start) is what the tree used in between.
type Sample struct {
	At    time.Time
	procs map[procKey]procTimes
}

// procKey names a process across time: a PID can be reused, its start time cannot.
type procKey struct {
	pid       int
	startTime uint64
}

type procTimes struct {
	parent procKey // as it was when sampled
	times  Times
}

// Take samples the roots and all their descendants. A root that does not exist is an
// error (the target died); a descendant that exits while we read is skipped.
func Take(roots ...int) (*Sample, error) {
	pids, err := Tree(roots...)
	if err != nil {
		return nil, err
	}
	isRoot := make(map[int]bool, len(roots))
	for _, r := range roots {
		isRoot[r] = true
	}
	s := &Sample{At: time.Now(), procs: make(map[procKey]procTimes, len(pids))}
	stats := make(map[int]stat, len(pids))
	for _, pid := range pids {
		st, err := readStat(pid)
		if err != nil {
			if isRoot[pid] || !errors.Is(err, ErrNotFound) {
				return nil, err
			}
			continue
		}
		stats[pid] = st
	}
	for pid, st := range stats {
		parent := procKey{pid: st.ppid}
		if ps, ok := stats[st.ppid]; ok {
			parent.startTime = ps.startTime
		}
		s.procs[procKey{pid, st.startTime}] = procTimes{parent: parent, times: st.times}
	}
	return s, nil
}

// Len is the number of processes in the sample.
func (s *Sample) Len() int { return len(s.procs) }

// Delta is the CPU a process tree used between two samples.
type Delta struct {
	User, System time.Duration
	Wall         time.Duration
	Started      int // processes in the end sample only (their whole CPU time counts)
	Exited       int // processes in the start sample only
	// Lost counts exited processes whose parent did not survive to the end sample: the
	// CPU they used after the start sample is missing from User and System.
	Lost int
}

// CPU is the user plus system time.
func (d Delta) CPU() time.Duration { return d.User + d.System }

// Sub returns what the tree used from start to s.
//
// Processes come and go (php-fpm recycles children, nginx may restart workers). The
// kernel adds a child's whole CPU time to its parent's "children" times when the parent
// reaps it, so each process is counted with those times included: a child that exited
// in between shows up in its parent's growth, and its time before the start sample is
// taken off again. That is exact when the parent of an exited process is still there.
// When it is not (the process was re-parented outside the tree, or its parent exited
// too), the time it used after the start sample is lost: Delta.Lost says how often.
func (s *Sample) Sub(start *Sample) Delta {
	d := Delta{Wall: s.At.Sub(start.At)}
	for k, end := range s.procs {
		u := end.times.User + end.times.ChildUser
		sy := end.times.System + end.times.ChildSystem
		if st, ok := start.procs[k]; ok {
			u -= st.times.User + st.times.ChildUser
			sy -= st.times.System + st.times.ChildSystem
		} else {
			d.Started++
		}
		d.User += u
		d.System += sy
	}
	for k, st := range start.procs {
		if _, ok := s.procs[k]; ok {
			continue
		}
		d.Exited++
		if _, ok := s.procs[st.parent]; !ok {
			d.Lost++
			continue // nobody in the tree will account for it: leave it out
		}
		d.User -= st.times.User + st.times.ChildUser
		d.System -= st.times.System + st.times.ChildSystem
	}
	return d
}

// String formats the delta for logs.
func (d Delta) String() string {
	return fmt.Sprintf("cpu %.3fs (user %.3fs, sys %.3fs) over %.3fs, %d started, %d exited, %d lost",
		d.CPU().Seconds(), d.User.Seconds(), d.System.Seconds(), d.Wall.Seconds(), d.Started, d.Exited, d.Lost)
}
