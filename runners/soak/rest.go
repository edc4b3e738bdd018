package soak

import (
	"context"
	"fmt"
	"time"
)

// RestDelay is how long after the load stopped the sample at rest is taken. The load
// generators return when their last answers are in, and a target closes a request's
// statement before it answers; the second lets every process finish closing.
const RestDelay = time.Second

// sampleAtRest takes one more sample once the load has stopped and its requests are
// done, and keeps each series' value there as its Rest: what a leak keeps and a request
// in flight does not. Judge reads it to tell a count that grew because more requests
// were in flight at the end (a queue, on a busy machine) from one that leaks.
func (s *soaker) sampleAtRest(ctx context.Context) {
	if !sleepUntil(ctx, time.Now().Add(RestDelay)) {
		return
	}
	scratch := s.scratch()
	t := time.Since(s.started).Seconds()
	s.sampleInto(ctx, scratch, t)
	if ctx.Err() != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, roles := s.file.Roles()
	_, rests := scratch.Roles()
	for i, r := range roles {
		for _, rs := range rests[i].Series {
			if got := r.find(rs.Name); got != nil && len(rs.Points) == 1 {
				got.Rest = &rs.Points[0]
			}
		}
	}
	fmt.Fprintf(s.o.Log, "soak: sampled at rest, %v after the load stopped (%.0f s)\n", RestDelay, t)
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

// scratch is an empty file of the soak's roles, for samples that are not the soak's
// series: the one at rest, and those taken while the capacity is measured.
func (s *soaker) scratch() *File {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := &File{Settings: s.file.Settings, Database: &Role{}}
	for _, v := range s.file.Variants {
		f.Variants = append(f.Variants, &Variant{Key: v.Key, Died: v.Died})
	}
	return f
}
