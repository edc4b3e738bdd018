package matrix

import "testing"

// A key without pool= gets it where a name spells it, before op=, db= and rev=; a key
// without db= is on the database asked for, one with db= stays on its own.
func TestResolveListOnPutsPoolAndDB(t *testing.T) {
	for in, want := range map[string]string{
		"lang=go/layer=raw/stmt=prepare/conn=persistent":                 "lang=go/layer=raw/stmt=prepare/conn=persistent/pool=3",
		"lang=go/layer=raw/stmt=prepare/conn=persistent/db=mysql":        "lang=go/layer=raw/stmt=prepare/conn=persistent/pool=3/db=mysql",
		"lang=go/layer=raw/stmt=prepare/conn=persistent/op=list10/rev=a": "lang=go/layer=raw/stmt=prepare/conn=persistent/pool=3/op=list10/rev=a",
	} {
		if got := withPool(in, 3); got != want {
			t.Errorf("withPool(%q) = %q, want %q", in, got, want)
		}
	}
	m := loadRepoMatrix(t)
	vs, err := m.ResolveListOn("lang=go/layer=pgx/stmt=exec/conn=persistent, lang=php/layer=raw/stmt=prepare/conn=persistent/db=mysql",
		func(string) int { return 2 }, "postgres")
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Database != "postgres" || vs[1].Database != "mysql" || vs[0].Pool != 2 {
		t.Errorf("got %v, want pgx on postgres and PDO on mysql, pool 2", vs)
	}
	if _, err := m.ResolveListOn("lang=go/layer=pgx/stmt=exec/conn=persistent", func(string) int { return 2 }, ""); err == nil {
		t.Error("pgx on the matrix's first database: want an error")
	}
}
