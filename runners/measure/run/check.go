package run

import (
	"encoding/json"
	"fmt"
	"slices"

	"dbbench/fixtures"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/loadgen"
)

// The checks of a 2xx body against what the request asked for, from the fixtures
// alone: the load generator runs them on a sample of responses while it measures, and
// the verification before it on every response it sends.

// Checker judges a body of each op's request on a table of rows fixture rows, each
// with perUser orders.
func Checker(rows, perUser int) func(q loadgen.Request, body []byte) error {
	return func(q loadgen.Request, body []byte) error {
		switch q.Op {
		case loadgen.List:
			return CheckList(q.ID, q.Limit, body)
		case loadgen.Orders:
			return CheckOrders(q.ID, q.Orders, perUser, body)
		case loadgen.ListOrders:
			return CheckListOrders(q.ID, q.Limit, q.Orders, perUser, body)
		case loadgen.Insert:
			_, err := CheckInserted(fixtures.InsertedName(q.N), rows, body)
			return err
		case loadgen.Update:
			_, err := CheckVisit(q.ID, body)
			return err
		}
		return CheckUser(q.ID, body)
	}
}

// user is a body's user, its fields pointers so that a missing one is told apart.
type user struct {
	ID     *uint32 `json:"id"`
	Name   *string `json:"name"`
	Visits *uint32 `json:"visits"`
}

// decodeUser reads body as one user object; the Check functions then judge its fields.
func decodeUser(body []byte) (user, error) {
	var u user
	if err := json.Unmarshal(body, &u); err != nil {
		return u, fmt.Errorf("body %s is not JSON: %w", truncate(body), err)
	}
	return u, nil
}

// CheckUser says whether body is the JSON the contract promises for id.
func CheckUser(id uint32, body []byte) error {
	u, err := decodeUser(body)
	if err != nil {
		return err
	}
	if u.ID == nil || u.Name == nil {
		return fmt.Errorf("body %s lacks id or name", truncate(body))
	}
	if *u.ID != id || *u.Name != fixtures.Name(id) {
		return fmt.Errorf("body %s, want id %d name %q", truncate(body), id, fixtures.Name(id))
	}
	return nil
}

// CheckList says whether body is the list of limit users after id after, all of them
// fixture rows (after is at most N − limit): every id in order with none missing, and
// every name name(id).
func CheckList(after uint32, limit int, body []byte) error {
	var us []user
	if err := json.Unmarshal(body, &us); err != nil {
		return fmt.Errorf("body %s is not a JSON array: %v", truncate(body), err)
	}
	for i, u := range us {
		want := after + 1 + uint32(i)
		switch {
		case u.ID == nil || u.Name == nil:
			return fmt.Errorf("row %d of the list after %d lacks id or name", i+1, after)
		case *u.ID != want:
			return fmt.Errorf("row %d of the list after %d has id %d, want %d: the ids after %d in order, none missing", i+1, after, *u.ID, want, after)
		case *u.Name != fixtures.Name(want):
			return fmt.Errorf("row %d of the list after %d: id %d named %q, want %q", i+1, after, want, *u.Name, fixtures.Name(want))
		}
	}
	if len(us) != limit {
		return fmt.Errorf("the list after %d has %d rows, want %d", after, len(us), limit)
	}
	return nil
}

// CheckInserted says whether body is a new user of name with an id above the rows
// fixture rows, and returns the id.
func CheckInserted(name string, rows int, body []byte) (uint32, error) {
	u, err := decodeUser(body)
	if err != nil {
		return 0, err
	}
	switch {
	case u.ID == nil || u.Name == nil:
		return 0, fmt.Errorf("body %s lacks id or name", truncate(body))
	case *u.ID <= uint32(rows):
		return 0, fmt.Errorf("insert answered id %d, want one above the %d fixture rows", *u.ID, rows)
	case *u.Name != name:
		return 0, fmt.Errorf("insert of %q answered name %q", name, *u.Name)
	}
	return *u.ID, nil
}

// CheckVisit says whether body is user id's counter after a visit (at least 1), and
// returns it.
func CheckVisit(id uint32, body []byte) (uint32, error) {
	u, err := decodeUser(body)
	if err != nil {
		return 0, err
	}
	switch {
	case u.ID == nil || u.Visits == nil:
		return 0, fmt.Errorf("body %s lacks id or visits", truncate(body))
	case *u.ID != id:
		return 0, fmt.Errorf("a visit of user %d answered id %d", id, *u.ID)
	case *u.Visits < 1:
		return 0, fmt.Errorf("a visit of user %d answered visits %d, want at least 1", id, *u.Visits)
	}
	return *u.Visits, nil
}

// readsOrders says whether a variant's op reads the orders table, which the run then
// loads.
func readsOrders(specs map[string]matrix.Spec) bool {
	for _, s := range specs {
		if s.Op != nil && s.Op.Orders > 0 {
			return true
		}
	}
	return false
}

// userOrders is a body's user with their orders, a missing field told apart.
type userOrders struct {
	user
	Orders *[]fixtures.Order `json:"orders"`
}

// CheckOrders says whether body is user id with their latest limit of perUser orders,
// highest id first (fixtures.LatestOrders).
func CheckOrders(id uint32, limit, perUser int, body []byte) error {
	var u userOrders
	if err := json.Unmarshal(body, &u); err != nil {
		return fmt.Errorf("body %s is not JSON: %w", truncate(body), err)
	}
	return checkUserOrders(id, limit, perUser, u, body)
}

func checkUserOrders(id uint32, limit, perUser int, u userOrders, body []byte) error {
	switch {
	case u.ID == nil || u.Name == nil || u.Orders == nil:
		return fmt.Errorf("body %s lacks id, name or orders", truncate(body))
	case *u.ID != id || *u.Name != fixtures.Name(id):
		return fmt.Errorf("body %s, want id %d name %q", truncate(body), id, fixtures.Name(id))
	}
	want := fixtures.LatestOrders(id, perUser, limit)
	if !slices.Equal(*u.Orders, want) {
		return fmt.Errorf("user %d's orders %v, want %v: their latest %d, highest id first", id, *u.Orders, want, limit)
	}
	return nil
}

// CheckListOrders says whether body is the list of limit users after after, each with
// their latest per orders.
func CheckListOrders(after uint32, limit, per, perUser int, body []byte) error {
	var us []userOrders
	if err := json.Unmarshal(body, &us); err != nil {
		return fmt.Errorf("body %s is not a JSON array: %v", truncate(body), err)
	}
	if len(us) != limit {
		return fmt.Errorf("the list after %d has %d users, want %d", after, len(us), limit)
	}
	for i, u := range us {
		if err := checkUserOrders(after+1+uint32(i), per, perUser, u, body); err != nil {
			return fmt.Errorf("row %d of the list after %d: %v", i+1, after, err)
		}
	}
	return nil
}
