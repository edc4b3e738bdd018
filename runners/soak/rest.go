package soak

import (
	"context"
	"fmt"
	"time"
)

// RestDelay is how long after a load stopped a sample at rest is taken. The load
// generators return when their last answers are in, and a target closes a request's
// statement before it answers; the second lets every process finish closing.
const RestDelay = time.Second

// A count is also sampled at rest, with no load running: once before the soak's load
// begins and once after it stops. What a leak took between the two it keeps; what
// requests in flight held (statements, connections, a queue's worth at the end of a
// soak on a busy machine) is gone from both. Judge compares the two with the rise.

// restSample samples every role into a scratch file, RestDelay after the last load
// stopped; ok is false when the soak was interrupted first.
func (s *soaker) restSample(ctx context.Context) (f *File, at time.Time, ok bool) {
	if !sleepUntil(ctx, time.Now().Add(RestDelay)) {
		return nil, at, false
	}
	f, at = s.scratch(), time.Now()
	s.sampleInto(ctx, f, 0)
	return f, at, ctx.Err() == nil
}

// keepRest sets each series' RestBefore and RestAfter from the two samples at rest,
// at their times after the soak started (the one before is negative).
func (s *soaker) keepRest(before, after *File, beforeAt, afterAt time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, roles := s.file.Roles()
	_, b := before.Roles()
	_, a := after.Roles()
	tb, ta := beforeAt.Sub(s.started).Seconds(), afterAt.Sub(s.started).Seconds()
	for i, r := range roles {
		for _, sr := range r.Series {
			pb, pa := b[i].find(sr.Name), a[i].find(sr.Name)
			if pb == nil || pa == nil || len(pb.Points) != 1 || len(pa.Points) != 1 {
				continue
			}
			sr.RestBefore = &Point{T: tb, Value: pb.Points[0].Value}
			sr.RestAfter = &Point{T: ta, Value: pa.Points[0].Value}
		}
	}
	fmt.Fprintf(s.o.Log, "soak: sampled at rest %v before the load began and %v after it stopped\n", RestDelay, RestDelay)
}

// scratch is an empty file of the soak's roles, for samples that are not the soak's
// series: those at rest, and those taken while the capacity is measured.
func (s *soaker) scratch() *File {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := &File{Settings: s.file.Settings, Database: &Role{}}
	for _, v := range s.file.Variants {
		f.Variants = append(f.Variants, &Variant{Key: v.Key, Died: v.Died})
	}
	return f
}

// find returns the role's series of that name, or nil.
func (r *Role) find(name string) *Series {
	for _, s := range r.Series {
		if s.Name == name {
			return s
		}
	}
	return nil
}
