package profile

import (
	"strings"
	"testing"
)

// Hand-made stacks, root first, and the component the rule must give them.
var goAttribution = []struct {
	why   string
	stack string
	want  Component
}{
	{"reflect under the ORM counts as the ORM (Pass)",
		"runtime.goexit;net/http.(*conn).serve;dbbench/go/layers/orm.(*Finder).User;github.com/beego/beego/v2/client/orm.(*ormBase).Read;reflect.Value.Field",
		ORM},
	{"allocation under the ORM is runtime (runtime is Own)",
		"runtime.goexit;net/http.(*conn).serve;github.com/beego/beego/v2/client/orm.(*ormBase).Read;runtime.newobject;runtime.mallocgc",
		Runtime},
	{"a map access under the ORM is the ORM's own work (runtime.map* is Pass)",
		"runtime.goexit;github.com/beego/beego/v2/client/orm.(*ormBase).Read;runtime.mapaccess2_faststr",
		ORM},
	{"a copy under the driver is the driver's",
		"runtime.goexit;database/sql.(*Rows).Next;github.com/go-sql-driver/mysql.(*buffer).readNext;runtime.memmove",
		Driver},
	{"reading the socket under the driver is syscalls",
		"runtime.goexit;github.com/go-sql-driver/mysql.(*mysqlConn).readPacket;net.(*conn).Read;internal/poll.(*FD).Read;syscall.Syscall",
		Syscall},
	{"connecting claims its syscalls (Subtree)",
		"runtime.goexit;database/sql.(*DB).conn;github.com/go-sql-driver/mysql.(*connector).Connect;net.(*Dialer).DialContext;syscall.connect",
		Connect},
	{"connecting claims its allocations",
		"runtime.goexit;database/sql.(*DB).conn;github.com/go-sql-driver/mysql.(*connector).Connect;github.com/go-sql-driver/mysql.(*mysqlConn).readHandshakePacket;runtime.mallocgc",
		Connect},
	{"bufio under the HTTP server is the HTTP server's",
		"runtime.goexit;net/http.(*conn).serve;net/http.(*response).finishRequest;bufio.(*Writer).Flush",
		HTTP},
	{"bufio reading a socket is syscalls",
		"runtime.goexit;net/http.(*conn).serve;bufio.(*Reader).Peek;net/http.(*connReader).Read;net.(*conn).Read;internal/poll.(*FD).Read",
		Syscall},
	{"JSON's reflection is JSON",
		"runtime.goexit;dbbench/go/server.writeJSON;encoding/json.Marshal;reflect.Value.Field",
		JSON},
	{"dbbench's own time",
		"runtime.goexit;net/http.(*conn).serve;net/http.HandlerFunc.ServeHTTP;dbbench/go/server.parseID;strconv.ParseUint",
		DbBench},
	{"squirrel's helper library is query building",
		"runtime.goexit;dbbench/go/layers/builder.(*Finder).User;github.com/Masterminds/squirrel.SelectBuilder.ToSql;github.com/lann/builder.Get",
		Builder},
	{"an unknown library inherits from its caller",
		"runtime.goexit;github.com/beego/beego/v2/client/orm.(*ormBase).Read;github.com/hashicorp/golang-lru.(*Cache).Get",
		ORM},
	{"GC workers are runtime",
		"runtime.goexit;runtime.gcBgMarkWorker;runtime.gcDrain;runtime.scanobject",
		Runtime},
	{"nothing known below the goroutine's root is other",
		"runtime.goexit;example.com/mystery.Worker",
		Other},
	{"bun's query appending is building, its scanning is the ORM",
		"runtime.goexit;github.com/uptrace/bun.(*SelectQuery).Scan;github.com/uptrace/bun.(*SelectQuery).AppendQuery",
		Builder},
	{"bun's scanning is the ORM",
		"runtime.goexit;github.com/uptrace/bun.(*SelectQuery).Scan;github.com/uptrace/bun/schema.(*Field).ScanValue",
		ORM},
	{"GORM's clauses are building, under GORM's callbacks",
		"runtime.goexit;gorm.io/gorm.(*DB).First;gorm.io/gorm/callbacks.Query;gorm.io/gorm/callbacks.BuildQuerySQL;gorm.io/gorm/clause.Where.Build",
		Builder},
	{"the profiler's own work is runtime, not HTTP",
		"runtime.goexit;net/http.(*conn).serve;net/http/pprof.Profile;runtime/pprof.StartCPUProfile",
		Runtime},
}

var phpAttribution = []struct {
	why   string
	stack string
	want  Component
}{
	{"the checkout's files as the target writes them, from the repository: the entry script is dbbench's code",
		"php/public/index.php;DbBench\\App::handle", DbBench},
	{"and bootstrap's whole subtree is bootstrap",
		"php/public/index.php;php/bootstrap.php;DbBench\\Config::fromEnvironment", Bootstrap},
	{"the Eloquent find goes through the query builder",
		"/srv/php/public/index.php;DbBench\\App::handle;DbBench\\Layer\\Orm::user;Illuminate\\Database\\Eloquent\\Model::__callStatic;Illuminate\\Database\\Eloquent\\Builder::find;Illuminate\\Database\\Query\\Builder::where",
		Builder},
	{"support helpers under hydration are hydration (Pass)",
		"/srv/php/public/index.php;Illuminate\\Database\\Eloquent\\Builder::getModels;Illuminate\\Database\\Eloquent\\Model::newFromBuilder;Illuminate\\Support\\Arr::get",
		ORM},
	{"the Connection closure that runs prepare/execute/fetch is PDO (Debian path)",
		"/srv/php/public/index.php;Illuminate\\Database\\Connection::select;Illuminate\\Database\\Connection::run;Illuminate\\Database\\Connection::runQueryCallback;{closure:/usr/share/php/Illuminate/Database/Connection.php(352)}",
		PDO},
	{"the same closure from Composer's vendor/",
		"/srv/php/public/index.php;Illuminate\\Database\\Connection::select;{closure:/srv/php/vendor/illuminate/database/Connection.php(352)}",
		PDO},
	{"Connection's own bookkeeping is the DB layer",
		"/srv/php/public/index.php;Illuminate\\Database\\Connection::select;Illuminate\\Database\\Connection::prepareBindings",
		DBLayer},
	{"the lazy connect inside a select is connection set-up (Subtree)",
		"/srv/php/public/index.php;Illuminate\\Database\\Connection::select;{closure:/usr/share/php/Illuminate/Database/Connection.php(352)};Illuminate\\Database\\Connection::getPdo;{closure:/usr/share/php/Illuminate/Database/Connectors/ConnectionFactory.php(178)};Illuminate\\Database\\Connectors\\MySqlConnector::connect;Illuminate\\Database\\Connectors\\MySqlConnector::configureEncoding",
		Connect},
	{"the lazy PDO resolver closure is connection set-up",
		"/srv/php/public/index.php;Illuminate\\Database\\Connection::getPdo;{closure:/usr/share/php/Illuminate/Database/Connectors/ConnectionFactory.php(179)}",
		Connect},
	{"a class loaded while building a query is bootstrap (the innermost Subtree wins)",
		"/srv/php/public/index.php;Illuminate\\Database\\Query\\Builder::toSql;{closure:/usr/share/php/Illuminate/Database/autoload.php(24)};/usr/share/php/Illuminate/Database/Query/Grammars/MySqlGrammar.php",
		Bootstrap},
	{"a class loaded while connecting is bootstrap too",
		"/srv/php/public/index.php;Illuminate\\Database\\Connectors\\ConnectionFactory::make;Composer\\Autoload\\ClassLoader::loadClass;{closure:/srv/php/vendor/composer/ClassLoader.php(576)}",
		Bootstrap},
	{"dbbench's own autoloader is bootstrap",
		"/srv/php/public/index.php;{closure:/srv/php/bootstrap.php(17)};/srv/php/src/App.php",
		Bootstrap},
	{"json_encode runs in Response::json",
		"/srv/php/public/index.php;DbBench\\App::handle;DbBench\\Response::json",
		JSON},
	{"the front controller's own code is dbbench's",
		"/srv/php/public/index.php",
		DbBench},
	{"setting up the Capsule is bootstrap",
		"/srv/php/public/index.php;DbBench\\Illuminate::capsule;Illuminate\\Database\\Capsule\\Manager::addConnection;Illuminate\\Support\\Fluent::offsetSet",
		Bootstrap},
	{"the Capsule's static proxy passes through to the builder",
		"/srv/php/public/index.php;Illuminate\\Database\\Capsule\\Manager::table;Illuminate\\Database\\Query\\Builder::from",
		Builder},
	{"Doctrine's metadata loading is bootstrap, with whatever it calls",
		"/srv/php/public/index.php;Doctrine\\ORM\\EntityManager::find;Doctrine\\ORM\\Mapping\\ClassMetadataFactory::getMetadataFor;Doctrine\\ORM\\Mapping\\ClassMetadataInfo::mapField",
		Bootstrap},
	{"Doctrine's hydration is the ORM",
		"/srv/php/public/index.php;Doctrine\\ORM\\EntityManager::find;Doctrine\\ORM\\Persisters\\Entity\\BasicEntityPersister::load;Doctrine\\ORM\\Internal\\Hydration\\ObjectHydrator::hydrateRowData",
		ORM},
	{"Doctrine's persister building SQL is building",
		"/srv/php/public/index.php;Doctrine\\ORM\\EntityManager::find;Doctrine\\ORM\\Persisters\\Entity\\BasicEntityPersister::getSelectSQL",
		Builder},
	{"DBAL's PDO wrappers are PDO",
		"/srv/php/public/index.php;Doctrine\\DBAL\\Connection::executeQuery;Doctrine\\DBAL\\Driver\\PDO\\Statement::execute",
		PDO},
	{"a closure alone decides nothing",
		"{closure:/srv/php/x.php(3)}",
		Other},
}

func TestAttribution(t *testing.T) {
	for _, tc := range []struct {
		lang  Lang
		cases []struct {
			why   string
			stack string
			want  Component
		}
	}{{Go, goAttribution}, {PHP, phpAttribution}} {
		c, err := NewClassifier(tc.lang)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range tc.cases {
			if got := c.Attribute(strings.Split(a.stack, ";")); got != a.want {
				t.Errorf("%s: %s: got %s, want %s\n  %s", tc.lang, a.why, got, a.want, a.stack)
			}
		}
	}
}

func TestPatternMatching(t *testing.T) {
	for _, tc := range []struct {
		pattern, frame string
		want           bool
	}{
		{"net/http.", "net/http.(*conn).serve", true},
		{"net.", "net/http.(*conn).serve", false},
		{"github.com/go-sql-driver/mysql.(*connector).Connect", "github.com/go-sql-driver/mysql.(*connector).Connect", true},
		{"github.com/go-sql-driver/mysql.(*connector).Connect", "github.com/go-sql-driver/mysql.(*mysqlConn).Connect", false},
		{".../autoload.php", "{closure:/usr/share/php/Illuminate/Database/autoload.php(24)}", true},
		{".../autoload.php", "/usr/share/php/Doctrine/DBAL/autoload.php", true},
		{".../autoload.php", "/usr/share/php/Illuminate/Database/Model.php", false},
		{"github.com/uptrace/bun.(...).Append", "github.com/uptrace/bun.(*SelectQuery).AppendQuery", true},
		{"github.com/uptrace/bun.(...).Append", "github.com/uptrace/bun.(*SelectQuery).Scan", false},
		{"a...b...c", "a-c-b", false},
		{"a...b...c", "a-b-c", true},
	} {
		if got := (Rule{Pattern: tc.pattern}).matches(tc.frame); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.pattern, tc.frame, got, tc.want)
		}
	}
}

func TestTheMostSpecificRowWins(t *testing.T) {
	c, err := NewClassifier(Go)
	if err != nil {
		t.Fatal(err)
	}
	for frame, want := range map[string]Rule{
		"runtime.mallocgc":                                       {Mode: Own, Component: Runtime},
		"runtime.memmove":                                        {Mode: Pass},
		"net/http/pprof.Index":                                   {Mode: Own, Component: Runtime},
		"net/http.(*conn).serve":                                 {Mode: Own, Component: HTTP},
		"internal/runtime/maps.Get":                              {Mode: Pass},
		"internal/runtime/syscall.Syscall6":                      {Mode: Own, Component: Syscall},
		"github.com/go-sql-driver/mysql.(*connector).Connect":    {Mode: Subtree, Component: Connect},
		"github.com/go-sql-driver/mysql.(*mysqlConn).readPacket": {Mode: Own, Component: Driver},
	} {
		r, ok := c.row(frame)
		if !ok || r.Mode != want.Mode || r.Component != want.Component {
			t.Errorf("%s: got row %+v (matched %v), want %v %s", frame, r, ok, want.Mode, want.Component)
		}
	}
	if c.Known("example.com/mystery.F") {
		t.Error("an unknown package matched a row")
	}
}

func TestNewClassifierRejectsAnUnknownLanguage(t *testing.T) {
	if _, err := NewClassifier("ruby"); err == nil || !strings.Contains(err.Error(), "ruby") {
		t.Errorf("err = %v, want one naming ruby", err)
	}
}

// TestTable checks the table for what the compiler cannot.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range table {
		key := string(r.Lang) + "\x00" + r.Pattern
		if seen[key] {
			t.Errorf("%s %q: pattern listed twice", r.Lang, r.Pattern)
		}
		seen[key] = true
		if r.specificity() == 0 {
			t.Errorf("%s %q: empty pattern", r.Lang, r.Pattern)
		}
		comps, err := Components(r.Lang)
		if err != nil {
			t.Errorf("%q: %v", r.Pattern, err)
			continue
		}
		switch {
		case r.Mode == Pass && r.Component != "":
			t.Errorf("%s %q: a Pass row names component %q", r.Lang, r.Pattern, r.Component)
		case r.Mode != Pass && !contains(comps, r.Component):
			t.Errorf("%s %q: component %q is not one of %s's", r.Lang, r.Pattern, r.Component, r.Lang)
		case r.Mode != Pass && r.Component == Other:
			t.Errorf("%s %q: no row maps to other; other is what no row decides", r.Lang, r.Pattern)
		}
	}
	for c := range components {
		if c.Color() == "" || c.Label() == "" {
			t.Errorf("component %s has no label or colour", c)
		}
	}
}

func contains(cs []Component, c Component) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}
