package profile

import (
	"fmt"
	"strings"
)

// Mode says how a table row's frames take part in attribution (see table.go).
type Mode int

const (
	// Own: the innermost Own frame of a sample decides, unless a Subtree frame does.
	Own Mode = iota
	// Subtree: the innermost Subtree frame of a sample decides, over any Own frame.
	Subtree
	// Pass: the frame never decides; nor does a frame that no row matches.
	Pass
)

func (m Mode) String() string {
	switch m {
	case Own:
		return "own"
	case Subtree:
		return "subtree"
	case Pass:
		return "pass"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Rule is one row of the table.
type Rule struct {
	Lang      Lang
	Mode      Mode
	Pattern   string // a prefix of the frame name; "..." stands for any characters
	Component Component
}

// Rules returns a copy of the table's rows for lang, in table order.
func Rules(lang Lang) []Rule {
	var out []Rule
	for _, r := range table {
		if r.Lang == lang {
			out = append(out, r)
		}
	}
	return out
}

// wildcard is the pattern syntax for "any characters". A literal "*" cannot serve:
// Go method names contain it, "(*conn).serve".
const wildcard = "..."

func (r Rule) matches(frame string) bool {
	parts := strings.Split(r.Pattern, wildcard)
	if !strings.HasPrefix(frame, parts[0]) {
		return false
	}
	rest := frame[len(parts[0]):]
	for _, p := range parts[1:] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return true
}

// specificity ranks matching rows: the longest pattern, wildcards not counted.
func (r Rule) specificity() int {
	return len(r.Pattern) - strings.Count(r.Pattern, wildcard)*len(wildcard)
}

// Classifier attributes stacks of one language to components. It remembers each
// frame's row, so reuse one for a whole profile. Not safe for concurrent use.
type Classifier struct {
	rules []Rule
	cache map[string]int // frame → index in rules, or -1 when no row matches
}

// NewClassifier returns a Classifier for lang's rows of the table.
func NewClassifier(lang Lang) (*Classifier, error) {
	if _, err := Components(lang); err != nil {
		return nil, err
	}
	return &Classifier{rules: Rules(lang), cache: map[string]int{}}, nil
}

// row returns the rule that decides about frame, or false when none matches.
func (c *Classifier) row(frame string) (Rule, bool) {
	i, ok := c.cache[frame]
	if !ok {
		i = -1
		for j, r := range c.rules {
			if r.matches(frame) && (i < 0 || r.specificity() > c.rules[i].specificity()) {
				i = j
			}
		}
		c.cache[frame] = i
	}
	if i < 0 {
		return Rule{}, false
	}
	return c.rules[i], true
}

// Attribute returns the component of a stack (root first): that of its innermost
// Subtree frame if it has one, else that of its innermost Own frame, else Other.
func (c *Classifier) Attribute(frames []string) Component {
	comp, _ := c.attribute(frames)
	return comp
}

// attribute also says whether a Subtree frame decided.
func (c *Classifier) attribute(frames []string) (Component, bool) {
	own := Other
	found := false
	for i := len(frames) - 1; i >= 0; i-- {
		r, ok := c.row(frames[i])
		if !ok {
			continue
		}
		switch r.Mode {
		case Subtree:
			return r.Component, true
		case Own:
			if !found {
				own, found = r.Component, true
			}
		}
	}
	return own, false
}

// Known says whether some row of the table matches frame.
func (c *Classifier) Known(frame string) bool {
	_, ok := c.row(frame)
	return ok
}
