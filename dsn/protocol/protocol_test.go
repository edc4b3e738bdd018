package protocol

import (
	"slices"
	"testing"
)

func TestOf(t *testing.T) {
	for line, want := range map[string]Protocol{
		"postgres://dbbench:pw@127.0.0.1:5432/dbbench?sslmode=disable": Postgres,
		"postgresql://u@h/db":      Postgres,
		"u:p@tcp(h:1)/db":          MySQL,
		"u:p@unix(/tmp/s.sock)/db": MySQL,
	} {
		if got := Of(line); got != want {
			t.Errorf("Of(%q) = %s, want %s", line, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	for s, want := range map[string]Protocol{"": MySQL, "mysql": MySQL, "postgres": Postgres} {
		if got, err := Parse(s); err != nil || got != want {
			t.Errorf("Parse(%q) = %s, %v; want %s", s, got, err, want)
		}
	}
	if _, err := Parse("oracle"); err == nil {
		t.Error("Parse(oracle): want an error naming the protocols")
	}
	if got := Names(); !slices.Equal(got, []string{"mysql", "postgres"}) {
		t.Errorf("Names() = %q", got)
	}
}

// Lists follow the order a request sends its commands in, each protocol its own, and
// put names it does not know after, by name.
func TestOrdered(t *testing.T) {
	mysql := MySQL.Ordered(map[string]float64{"Quit": 1, "Query": 1, "Connect": 1}, map[string]float64{"Zebra": 1, "Prepare": 2})
	if want := []string{"Connect", "Query", "Prepare", "Quit", "Zebra"}; !slices.Equal(mysql, want) {
		t.Errorf("MySQL.Ordered = %q, want %q", mysql, want)
	}
	pg := Postgres.Ordered(map[string]float64{"Sync": 1, "Bind": 1, "Parse": 1, "Execute": 1})
	if want := []string{"Parse", "Bind", "Execute", "Sync"}; !slices.Equal(pg, want) {
		t.Errorf("Postgres.Ordered = %q, want %q", pg, want)
	}
	if Waits("Close stmt") || Waits("Quit") || !Waits("Query") || !Waits("Execute") {
		t.Error("Waits: Close stmt and Quit get no answer, Query and Execute do")
	}
	if MySQL.Commands() != "commands" || Postgres.Commands() != "messages" {
		t.Error("Commands: MySQL's are commands, PostgreSQL's messages")
	}
}
