package revcost

import (
	"fmt"
	"strings"

	"dbbench/runners/results"
	"dbbench/runners/units"
)

// Commands compares a variant's MySQL commands per request at A and B. They are
// counted exactly (one request at a time, on the wire), so any difference is a change
// of the code path: a finding of its own, with no interval.
type Commands struct {
	A       float64         `json:"a"` // every command per request
	B       float64         `json:"b"`
	Changes []CommandChange `json:"changes,omitempty"`
}

// CommandChange is one command whose count per request differs.
type CommandChange struct {
	Name string  `json:"name"`
	A    float64 `json:"a"`
	B    float64 `json:"b"`
}

// commandsOf compares the captures of a and b; nil when a side has none (a variant
// without database has none, and no commands: 0 against 0).
func commandsOf(a, b *results.Variant) *Commands {
	if !a.DB && !b.DB {
		return &Commands{}
	}
	if a.Roundtrips == nil || b.Roundtrips == nil {
		return nil
	}
	ca, cb := a.Roundtrips.PerCommand(), b.Roundtrips.PerCommand()
	c := &Commands{}
	c.A, _ = a.Roundtrips.Commands()
	c.B, _ = b.Roundtrips.Commands()
	for _, k := range a.Roundtrips.Speaks().Ordered(ca, cb) {
		if ca[k] != cb[k] {
			c.Changes = append(c.Changes, CommandChange{Name: k, A: ca[k], B: cb[k]})
		}
	}
	return c
}

// Changed says whether B sends other commands than A.
func (c *Commands) Changed() bool { return c != nil && len(c.Changes) > 0 }

// Grew says whether B sends more commands per request than A: a cost that no machine
// makes go away.
func (c *Commands) Grew() bool { return c != nil && c.B > c.A }

// String says the change: "2 → 3 commands per request: Ping appeared (1), Query 1 → 2",
// "1 command per request, the same" when there is none.
func (c *Commands) String() string {
	if !c.Changed() {
		return units.Count(c.A, "command") + " per request, the same"
	}
	var parts []string
	for _, ch := range c.Changes {
		switch {
		case ch.A == 0:
			parts = append(parts, fmt.Sprintf("%s appeared (%s)", ch.Name, units.Number(ch.B)))
		case ch.B == 0:
			parts = append(parts, fmt.Sprintf("%s went (%s)", ch.Name, units.Number(ch.A)))
		default:
			parts = append(parts, fmt.Sprintf("%s %s → %s", ch.Name, units.Number(ch.A), units.Number(ch.B)))
		}
	}
	return fmt.Sprintf("%s → %s commands per request: %s", units.Number(c.A), units.Number(c.B), strings.Join(parts, ", "))
}

// Short is the change in few words: "1 → 2 (+Ping)", "1, same".
func (c *Commands) Short() string {
	if !c.Changed() {
		return units.Number(c.A) + ", same"
	}
	var parts []string
	for _, ch := range c.Changes {
		sign := "+"
		if ch.B < ch.A {
			sign = "−"
		}
		parts = append(parts, sign+ch.Name)
	}
	return fmt.Sprintf("%s → %s (%s)", units.Number(c.A), units.Number(c.B), strings.Join(parts, " "))
}
