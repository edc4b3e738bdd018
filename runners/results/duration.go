package results

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time.Duration that results.json keeps in Go's own text ("1ms",
// "1.5s"), as the flag that set it was typed: readable in the file, and read back as a
// duration, not as a string each reader parses again.
type Duration time.Duration

// D is the duration as the time package has it.
func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the duration's text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads a duration's text; "" is zero, as older files may hold.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration: want text such as \"1ms\": %w", err)
	}
	if s == "" {
		*d = 0
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("duration: %w", err)
	}
	*d = Duration(v)
	return nil
}
