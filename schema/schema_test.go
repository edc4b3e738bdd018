package schema

import (
	"strings"
	"testing"
)

// The DDL carries the marker Owned looks for, so a table the loader made is its own.
func TestUsersCarriesTheMarker(t *testing.T) {
	i := strings.Index(Users, "COMMENT = '")
	if i < 0 {
		t.Fatal("users.sql gives the table no COMMENT")
	}
	comment := Users[i+len("COMMENT = '"):]
	comment = comment[:strings.Index(comment, "'")]
	if !Owned(comment) {
		t.Fatalf("the comment %q does not start with the marker %q", comment, Marker)
	}
	if Owned("") || Owned("customers of the shop") {
		t.Fatal("Owned accepted a comment without the marker")
	}
	if !strings.Contains(Users, "CREATE TABLE "+Table+" ") {
		t.Fatalf("users.sql does not create the table %q", Table)
	}
}
