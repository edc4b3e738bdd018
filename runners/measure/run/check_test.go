package run

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"dbbench/fixtures"
	"dbbench/runners/define/matrix"
	"dbbench/runners/measure/dbtest"
)

func TestCheckUser(t *testing.T) {
	if err := CheckUser(42, []byte(`{"id":42,"name":"Zo\u00eb Gray #42"}`)); err != nil {
		t.Fatalf("escaped unicode must pass: %v", err)
	}
	for _, body := range []string{`{"id":42,"name":"Zoe Gray #42"}`, `{"id":41,"name":"Zoë Gray #42"}`, `{"name":"Zoë Gray #42"}`, `<html>`} {
		if err := CheckUser(42, []byte(body)); err == nil {
			t.Errorf("CheckUser accepted %s", body)
		}
	}
}

// listBody is the list of ids as a target would answer it, names from the fixtures.
func listBody(ids ...uint32) []byte {
	type row struct {
		ID   uint32 `json:"id"`
		Name string `json:"name"`
	}
	rows := []row{}
	for _, id := range ids {
		rows = append(rows, row{id, fixtures.Name(id)})
	}
	b, _ := json.Marshal(rows)
	return b
}

// A list passes only as the fixture rows after `after`, in id order, none missing,
// none added, every name name(id).
func TestCheckListCatchesAWrongList(t *testing.T) {
	if err := CheckList(40, 4, listBody(41, 42, 43, 44)); err != nil {
		t.Fatalf("the right list: %v", err)
	}
	renamed := strings.Replace(string(listBody(41, 42, 43, 44)), fixtures.Name(43), "Mallory #43", 1)
	for name, tc := range map[string]struct {
		body string
		want string
	}{
		"one id missing":  {string(listBody(41, 42, 44, 45)), "row 3 of the list after 40 has id 44, want 43"},
		"out of order":    {string(listBody(41, 43, 42, 44)), "row 2 of the list after 40 has id 43, want 42"},
		"one row short":   {string(listBody(41, 42, 43)), "has 3 rows, want 4"},
		"one row more":    {string(listBody(41, 42, 43, 44, 45)), "has 5 rows, want 4"},
		"starts too late": {string(listBody(42, 43, 44, 45)), "row 1 of the list after 40 has id 42, want 41"},
		"a wrong name":    {renamed, `id 43 named "Mallory #43"`},
		"no name":         {`[{"id":41}]`, "lacks id or name"},
		"not an array":    {`{"id":41}`, "not a JSON array"},
	} {
		if err := CheckList(40, 4, []byte(tc.body)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: CheckList = %v, want an error containing %q", name, err, tc.want)
		}
	}
}

// An insert passes only with the name sent and an id above the fixture rows.
func TestCheckInsertedCatchesAWrongInsert(t *testing.T) {
	name := fixtures.InsertedName(7)
	if id, err := CheckInserted(name, 1000, []byte(fmt.Sprintf(`{"id":1001,"name":%q}`, name))); err != nil || id != 1001 {
		t.Fatalf("the right answer: %d, %v", id, err)
	}
	for body, want := range map[string]string{
		fmt.Sprintf(`{"id":1000,"name":%q}`, name):               "want one above the 1000 fixture rows",
		`{"id":1001,"name":"Ada Allen +8"}`:                      "answered name",
		fmt.Sprintf(`{"name":%q}`, name):                         "lacks id or name",
		fmt.Sprintf(`{"id":1001,"name":%q}x`, name):              "not JSON",
		fmt.Sprintf(`{"id":1001,"name":%q}`, name[:len(name)-1]): "answered name",
	} {
		if _, err := CheckInserted(name, 1000, []byte(body)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckInserted(%s) = %v, want an error containing %q", body, err, want)
		}
	}
	if v, err := CheckVisit(9, []byte(`{"id":9,"visits":3}`)); err != nil || v != 3 {
		t.Errorf("CheckVisit of a right answer = %d, %v", v, err)
	}
	for _, body := range []string{`{"id":8,"visits":3}`, `{"id":9,"visits":0}`, `{"id":9}`} {
		if _, err := CheckVisit(9, []byte(body)); err == nil {
			t.Errorf("CheckVisit accepted %s", body)
		}
	}
}

// fakeTarget answers the ops as a target would, except for what wrong breaks.
func fakeTarget(t *testing.T, rows int, wrong string, nextID *atomic.Int64) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/users" && r.Method == "GET":
			after, err1 := strconv.Atoi(r.URL.Query().Get("after"))
			limit, err2 := strconv.Atoi(r.URL.Query().Get("limit"))
			if err1 != nil || err2 != nil {
				http.Error(w, `{"error":"bad limit"}`, 400)
				return
			}
			var ids []uint32
			for id := after + 1; id <= after+limit && id <= rows; id++ {
				if wrong == "gap" && id == after+3 || wrong == "order" && id == after+2 {
					continue
				}
				ids = append(ids, uint32(id))
				if wrong == "order" && id == after+3 {
					ids = append(ids, uint32(after+2))
				}
			}
			w.Write(listBody(ids...))
		case r.URL.Path == "/users" && r.Method == "POST":
			var u struct{ Name string }
			if json.NewDecoder(r.Body).Decode(&u) != nil || u.Name == "" {
				http.Error(w, `{"error":"bad body"}`, 400)
				return
			}
			w.WriteHeader(201)
			fmt.Fprintf(w, `{"id":%d,"name":%q}`, nextID.Add(1), u.Name) // no row behind it
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// The verification before a variant is measured catches a target whose list drops
// one id or swaps two, and one whose insert answers 201 with a row the table lacks.
func TestVerifyCatchesAWrongListAndAWrongInsert(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a database")
	}
	db := dbtest.Start(t, 1000)
	admin, err := db.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	m, err := matrix.Load("../../matrix.yaml")
	if err != nil {
		t.Fatal(err)
	}
	spec := func(op string) matrix.Spec {
		s, err := m.Spec(matrix.Variant{Lang: "go", Server: "nethttp", Layer: "raw", Stmt: "interpolate", Conn: "persistent", Pool: 4, Op: op})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	var next atomic.Int64
	next.Store(1000)
	ctx := context.Background()
	if v := verify(ctx, fakeTarget(t, 1000, "", &next), spec("list100"), 1000, 0, 1, admin, func(q string) string { return q }); v.Error != "" || v.Bodies != 1000 || v.BadID != 400 {
		t.Fatalf("a right list: %+v", v)
	}
	for wrong, want := range map[string]string{"gap": "has id 4, want 3", "order": "has id 3, want 2"} {
		v := verify(ctx, fakeTarget(t, 1000, wrong, &next), spec("list10"), 1000, 0, 1, admin, func(q string) string { return q })
		if !strings.Contains(v.Error, want) {
			t.Errorf("a list with its %s: verification %q, want it to say %q", wrong, v.Error, want)
		}
	}
	v := verify(ctx, fakeTarget(t, 1000, "", &next), spec("insert"), 1000, 0, 1, admin, func(q string) string { return q })
	if !strings.Contains(v.Error, "which the table does not hold") {
		t.Errorf("an insert that wrote nothing: verification %q, want it caught by reading the row back", v.Error)
	}
	if _, err := admin.Exec("INSERT INTO users (id, name) VALUES (1001, 'someone else')"); err != nil {
		t.Fatal(err)
	}
	next.Store(1000)
	v = verify(ctx, fakeTarget(t, 1000, "", &next), spec("insert"), 1000, 0, 1, admin, func(q string) string { return q })
	if !strings.Contains(v.Error, `the table holds "someone else"`) {
		t.Errorf("an insert answering another row's id: verification %q, want the row read back to differ", v.Error)
	}
}

// ordersBody is user id with the orders given, as a target would answer it.
func ordersBody(id uint32, orders ...fixtures.Order) string {
	b, _ := json.Marshal(map[string]any{"id": id, "name": fixtures.Name(id), "orders": append([]fixtures.Order{}, orders...)})
	return string(b)
}

// A user's orders pass only as their latest, highest id first, each total(id).
func TestCheckOrdersCatchesWrongOrders(t *testing.T) {
	latest := fixtures.LatestOrders(7, 10, 3) // 70, 69, 68
	if err := CheckOrders(7, 3, 10, []byte(ordersBody(7, latest...))); err != nil {
		t.Fatalf("the right orders: %v", err)
	}
	wrongTotal := slices.Clone(latest)
	wrongTotal[1].Total++
	for name, body := range map[string]string{
		"oldest first":   ordersBody(7, latest[2], latest[1], latest[0]),
		"one short":      ordersBody(7, latest[:2]...),
		"another user's": ordersBody(7, fixtures.LatestOrders(8, 10, 3)...),
		"a wrong total":  ordersBody(7, wrongTotal...),
		"no orders key":  `{"id":7,"name":"` + fixtures.Name(7) + `"}`,
	} {
		if err := CheckOrders(7, 3, 10, []byte(body)); err == nil {
			t.Errorf("%s: CheckOrders accepted %s", name, body)
		}
	}
	page := "[" + ordersBody(41, fixtures.LatestOrders(41, 10, 2)...) + "," + ordersBody(42, fixtures.LatestOrders(42, 10, 2)...) + "]"
	if err := CheckListOrders(40, 2, 2, 10, []byte(page)); err != nil {
		t.Fatalf("the right page: %v", err)
	}
	short := "[" + ordersBody(41, fixtures.LatestOrders(41, 10, 2)...) + "," + ordersBody(42, fixtures.LatestOrders(42, 10, 1)...) + "]"
	if err := CheckListOrders(40, 2, 2, 10, []byte(short)); err == nil || !strings.Contains(err.Error(), "row 2 of the list after 40") {
		t.Errorf("a page whose second user lacks an order: %v", err)
	}
}
