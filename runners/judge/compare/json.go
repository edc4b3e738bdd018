package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Num is a number that JSON writes as null when it is infinite or NaN (an interval that
// does not exist), since JSON has no infinity.
type Num float64

func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// Change is a relative change new/old − 1 with its 95% interval: -0.10 is 10% less.
// Lo and Hi are null in JSON (±Inf here) when there is no interval.
type Change struct {
	Lo  Num `json:"lo"`
	Mid Num `json:"mid"`
	Hi  Num `json:"hi"`
}

// WriteJSON writes the comparison as indented JSON (--format json): the same data as
// the text, with the field names of Result. Intervals that do not exist are null.
func (r *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("compare: encode json: %w", err)
	}
	return nil
}
