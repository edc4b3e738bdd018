package run

import (
	"testing"
	"time"

	"dbbench/runners/define/matrix"
)

// --profile given or not, and the preset's profile length, decide whether a run
// profiles: a preset that profiles (smoke) does unless --profile=false; another only
// with --profile.
func TestProfilingFromTheFlagAndThePreset(t *testing.T) {
	for _, c := range []struct {
		given, on  bool
		preset     time.Duration
		want       Profiling
		wantLength time.Duration
	}{
		{false, false, 2 * time.Second, ProfileOn, 2 * time.Second},
		{true, false, 2 * time.Second, ProfileOff, DefaultProfileTime},
		{false, false, 0, ProfileOff, DefaultProfileTime},
		{true, true, 0, ProfileOn, DefaultProfileTime},
	} {
		o := Options{Selection: Selection{Preset: &matrix.Preset{Profile: c.preset}}, Checks: Checks{Profile: ProfilingOf(c.given, c.on)}}
		o.Defaults()
		if o.Profile != c.want || o.ProfileTime != c.wantLength {
			t.Errorf("given %v, on %v, preset's %v: profile %v for %v, want %v for %v", c.given, c.on, c.preset, o.Profile, o.ProfileTime, c.want, c.wantLength)
		}
	}
}
