package profile

import (
	"strings"
	"testing"
)

func stacks(unit string, lines ...string) *Profile {
	p, err := ReadCollapsed(strings.NewReader(strings.Join(lines, "\n")), unit)
	if err != nil {
		panic(err)
	}
	return p
}

func TestFoldSumsComponentsExactly(t *testing.T) {
	p := stacks("nanoseconds",
		"runtime.goexit;net/http.(*conn).serve 100",
		"runtime.goexit;net/http.(*conn).serve;bufio.(*Writer).Flush 20",
		"runtime.goexit;net/http.(*conn).serve;dbbench/go/server.writeJSON;encoding/json.Marshal;reflect.Value.Field 30",
		"runtime.goexit;net/http.(*conn).serve;dbbench/go/server.user 7",
		"runtime.goexit;dbbench/go/layers/orm.(*Finder).User;github.com/beego/beego/v2/client/orm.(*ormBase).Read 50",
		"runtime.goexit;dbbench/go/layers/orm.(*Finder).User;github.com/beego/beego/v2/client/orm.(*ormBase).Read;runtime.mallocgc 25",
		"runtime.goexit;database/sql.(*DB).QueryContext;github.com/go-sql-driver/mysql.(*mysqlConn).readPacket;syscall.Syscall 40",
		"runtime.goexit;database/sql.(*DB).QueryContext;github.com/go-sql-driver/mysql.(*connector).Connect;syscall.Syscall 9",
		"runtime.goexit;example.com/mystery.Worker 6",
		"runtime.goexit;example.com/mystery.Worker;example.com/mystery.helper 3",
	)
	f, err := Fold(p, Go)
	if err != nil {
		t.Fatal(err)
	}
	want := map[Component]int64{
		HTTP: 120, JSON: 30, DbBench: 7, ORM: 50, Runtime: 25, Syscall: 40, Connect: 9, Other: 9,
		Builder: 0, Pool: 0, Driver: 0,
	}
	if len(f.Weights) != len(want) {
		t.Errorf("weights %v: want every Go component, %d of them", f.Weights, len(want))
	}
	for c, w := range want {
		if f.Weights[c] != w {
			t.Errorf("%s = %d, want %d", c, f.Weights[c], w)
		}
	}
	if f.Total != 290 || f.Unit != "nanoseconds" {
		t.Errorf("total %d %s, want 290 nanoseconds", f.Total, f.Unit)
	}
	wantUnknown := map[string]int64{"example.com/mystery.Worker": 6, "example.com/mystery.helper": 3}
	if len(f.Unknown) != len(wantUnknown) {
		t.Errorf("unknown leaves %v, want %v", f.Unknown, wantUnknown)
	}
	for k, w := range wantUnknown {
		if f.Unknown[k] != w {
			t.Errorf("unknown %s = %d, want %d", k, f.Unknown[k], w)
		}
	}
	per, err := f.Per(10)
	if err != nil {
		t.Fatal(err)
	}
	if per[HTTP] != 12 || per[Connect] != 0.9 {
		t.Errorf("per request: http %v, connect %v, want 12, 0.9", per[HTTP], per[Connect])
	}
	if _, err := f.Per(0); err == nil {
		t.Error("Per(0): want an error")
	}
}

func TestFoldPHP(t *testing.T) {
	p := stacks("samples",
		";/srv/php/public/index.php;DbBench\\App::handle;DbBench\\Response::json 4",
		";/srv/php/public/index.php;Illuminate\\Database\\Connection::select;{closure:/usr/share/php/Illuminate/Database/Connection.php(352)} 10",
		";/srv/php/public/index.php;{closure:/srv/php/bootstrap.php(17)};/srv/php/src/App.php 3",
		";/srv/php/public/index.php;Illuminate\\Database\\Query\\Builder::toSql;collect 5",
	)
	f, err := Fold(p, PHP)
	if err != nil {
		t.Fatal(err)
	}
	for c, w := range map[Component]int64{JSON: 4, PDO: 10, Bootstrap: 3, Builder: 5, Other: 0} {
		if f.Weights[c] != w {
			t.Errorf("%s = %d, want %d", c, f.Weights[c], w)
		}
	}
	// A leaf claimed by a Subtree frame is not reported unknown; "collect" is.
	if len(f.Unknown) != 1 || f.Unknown["collect"] != 5 {
		t.Errorf("unknown = %v, want only collect: 5", f.Unknown)
	}
}

func TestCheckNamesTheShareOfOtherAndTheMissingRows(t *testing.T) {
	p := stacks("nanoseconds",
		"runtime.goexit;net/http.(*conn).serve 80",
		"runtime.goexit;example.com/mystery.Worker 15",
		"runtime.goexit;example.com/other.Thing 5",
	)
	f, err := Fold(p, Go)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Share(Other); got != 0.2 {
		t.Errorf("share of other = %v, want 0.2", got)
	}
	if err := f.Check(0.25); err != nil {
		t.Errorf("Check(0.25) = %v, want nil for 20%%", err)
	}
	err = f.Check(0.05)
	if err == nil {
		t.Fatal("Check(0.05) = nil, want an error for 20%")
	}
	for _, want := range []string{"20.0%", "example.com/mystery.Worker (15.0%), example.com/other.Thing (5.0%)"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check error %q lacks %q", err, want)
		}
	}
	empty, _ := Fold(&Profile{Unit: "samples"}, PHP)
	if empty.Check(1) == nil {
		t.Error("Check of an empty profile: want an error")
	}
	if _, err := Fold(p, "cobol"); err == nil {
		t.Error("Fold with an unknown language: want an error")
	}
}
