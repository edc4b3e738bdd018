package profile

// The table below is the only place that knows which frame belongs to which component.
//
// It is a Go slice literal rather than an embedded YAML file: a misspelt component or
// mode does not compile, the rows need no parser or schema of their own, and gofmt keeps
// them aligned like a table. Editing it means rebuilding, which every change to the
// suite does anyway (make build). TestTable checks what the compiler cannot: no pattern
// twice, no empty pattern, every component of a row listed for its language.
//
// A row: language, mode, pattern, component.
//   - Pattern: the frame name starts with it; "..." inside it stands for any run of
//     characters (so ".../autoload.php" means "contains /autoload.php"). When several
//     rows match a frame, the longest pattern (not counting "...") wins; order is free.
//   - Own: the frame and the Pass or unknown frames it calls belong to the component,
//     unless a frame nearer the leaf decides otherwise.
//   - Subtree: everything at and below the frame belongs to the component, whatever is
//     called (class loading, connecting: their runtime, syscalls and PDO calls included).
//   - Pass: the frame never decides; its time goes to whoever called it (helpers: reflect,
//     strconv, bufio, runtime's map and copy routines, PHP closures and support classes).
//     A frame no row matches is treated the same way, and reported as unknown.
//
// Go frames are function names as pprof shows them ("net/http.(*conn).serve"). PHP
// frames are Excimer's: "Class::method", "{closure:/path/file.php(line)}", or a file's
// path for file-scope code, the checkout's own files written from the repository
// ("php/public/index.php": runners/measure/target/php.go cuts the machine's path). Excimer records user-code frames only: PDO methods and
// json_encode never appear, their time lands in the PHP frame that called them, so the
// rows below name those callers (the Connection closure that runs prepare/execute/fetch,
// DbBench\Response::json).
//
// Every row has the same shape on purpose: the table is data, read and checked row by
// row, so runs of rows look alike to a duplicate finder without being repeated logic.
var table = []Rule{
	// Go: HTTP server.
	{Go, Own, "net/http.", HTTP},
	{Go, Own, "net/textproto.", HTTP},
	{Go, Own, "net/url.", HTTP},
	{Go, Own, "mime.", HTTP},
	{Go, Own, "vendor/golang.org/x/net/http", HTTP},
	{Go, Own, "golang.org/x/net/http", HTTP},

	// Go: JSON.
	{Go, Own, "encoding/json.", JSON},
	{Go, Own, "encoding/json/", JSON},

	// Go: query building.
	{Go, Own, "github.com/Masterminds/squirrel.", Builder},
	{Go, Own, "github.com/lann/builder.", Builder},
	{Go, Own, "github.com/lann/ps.", Builder},
	{Go, Own, "github.com/uptrace/bun.(...).Append", Builder},
	{Go, Own, "github.com/uptrace/bun.(...).append", Builder},
	{Go, Own, "github.com/uptrace/bun/schema.Append", Builder},
	{Go, Own, "github.com/uptrace/bun/schema.append", Builder},
	{Go, Own, "github.com/uptrace/bun/schema.(*Formatter)", Builder},
	{Go, Own, "github.com/uptrace/bun/schema.Formatter", Builder},
	{Go, Own, "github.com/uptrace/bun/dialect/", Builder},
	{Go, Own, "entgo.io/ent/dialect/sql.", Builder},
	{Go, Own, "entgo.io/ent/dialect/sql/sqlgraph.", Builder},
	{Go, Own, "gorm.io/gorm/clause.", Builder},
	{Go, Own, "gorm.io/gorm.(*Statement).Build", Builder},
	{Go, Own, "gorm.io/gorm.(*Statement).Write", Builder},
	{Go, Own, "gorm.io/gorm.(*Statement).AddVar", Builder},
	{Go, Own, "gorm.io/gorm.(*Statement).Quote", Builder},
	{Go, Own, "gorm.io/gorm/callbacks.BuildQuerySQL", Builder},
	{Go, Own, "gorm.io/driver/mysql.Dialector.QuoteTo", Builder},
	{Go, Own, "gorm.io/driver/mysql.Dialector.BindVarTo", Builder},
	{Go, Own, "github.com/jmoiron/sqlx.Rebind", Builder},
	{Go, Own, "github.com/jmoiron/sqlx.In", Builder},
	{Go, Own, "github.com/jmoiron/sqlx.compileNamedQuery", Builder},

	// Go: ORM mapping and hydration (the rest of each ORM).
	{Go, Own, "github.com/beego/beego/v2/", ORM},
	{Go, Own, "gorm.io/gorm", ORM},
	{Go, Own, "gorm.io/driver/mysql.", ORM},
	{Go, Own, "github.com/uptrace/bun", ORM},
	{Go, Pass, "github.com/uptrace/bun/internal/", ""},
	{Go, Own, "entgo.io/ent", ORM},
	{Go, Own, "github.com/jmoiron/sqlx", ORM},

	// Go: database/sql and the driver. Opening and closing a connection is a component
	// of its own (per-request connections), whatever it spends in syscalls or runtime.
	{Go, Own, "database/sql.", Pool},
	{Go, Own, "database/sql/driver.", Pool},
	{Go, Own, "github.com/go-sql-driver/mysql.", Driver},
	{Go, Subtree, "github.com/go-sql-driver/mysql.(*connector).Connect", Connect},
	{Go, Subtree, "github.com/go-sql-driver/mysql.(*mysqlConn).Close", Connect},

	// Go: syscalls and network.
	{Go, Own, "syscall.", Syscall},
	{Go, Own, "internal/poll.", Syscall},
	{Go, Own, "internal/syscall/", Syscall},
	{Go, Own, "net.", Syscall},
	{Go, Own, "runtime/internal/syscall.", Syscall},
	{Go, Own, "internal/runtime/syscall", Syscall},
	{Go, Own, "golang.org/x/sys/", Syscall},

	// Go: runtime and GC: scheduler, allocator, collector, stacks, timers, netpoll, and
	// the profiler itself. What the compiler emits for a map access, a copy or a string
	// comparison is Pass, part of the caller's own work; allocation is not.
	{Go, Own, "runtime.", Runtime},
	{Go, Own, "internal/runtime/", Runtime},
	{Go, Own, "runtime/pprof.", Runtime},
	{Go, Own, "net/http/pprof.", Runtime},
	{Go, Own, "gogo", Runtime}, // assembly, named without its package
	{Go, Own, "gcWriteBarrier", Runtime},
	{Go, Own, "expandAVX512", Runtime}, // the collector's scanning kernels
	{Go, Pass, "runtime.goexit", ""},
	{Go, Pass, "runtime.main", ""},
	{Go, Pass, "runtime.mstart", ""},
	{Go, Pass, "runtime.memmove", ""},
	{Go, Pass, "runtime.memclrNoHeapPointers", ""},
	{Go, Pass, "runtime.memequal", ""},
	{Go, Pass, "runtime.cmpstring", ""},
	{Go, Pass, "runtime.concatstring", ""},
	{Go, Pass, "runtime.slicebytetostring", ""},
	{Go, Pass, "runtime.stringtoslice", ""},
	{Go, Pass, "runtime.intstring", ""},
	{Go, Pass, "runtime.map", ""},
	{Go, Pass, "runtime.strhash", ""},
	{Go, Pass, "runtime.memhash", ""},
	{Go, Pass, "runtime.aeshash", ""},
	{Go, Pass, "runtime.nilinterhash", ""},
	{Go, Pass, "runtime.interhash", ""},
	{Go, Pass, "runtime.efaceeq", ""},
	{Go, Pass, "runtime.ifaceeq", ""},
	{Go, Pass, "runtime.convT", ""},
	{Go, Pass, "runtime.assert", ""},
	{Go, Pass, "runtime.typeAssert", ""},
	{Go, Pass, "runtime.newobject", ""},
	{Go, Pass, "runtime.makeslice", ""},
	{Go, Pass, "runtime.growslice", ""},
	{Go, Pass, "runtime.typedmemmove", ""},
	{Go, Pass, "runtime.typedslicecopy", ""},
	{Go, Pass, "runtime.duff", ""},
	{Go, Pass, "internal/runtime/maps.", ""},
	{Go, Pass, "internal/runtime/atomic.", ""},
	{Go, Pass, "aeshashbody", ""},
	{Go, Pass, "memeqbody", ""},
	{Go, Pass, "indexbytebody", ""},
	{Go, Pass, "cmpbody", ""},
	{Go, Pass, "countbody", ""},

	// Go: the standard library's helpers count for their caller.
	{Go, Pass, "bufio.", ""},
	{Go, Pass, "bytes.", ""},
	{Go, Pass, "cmp.", ""},
	{Go, Pass, "compress/", ""},
	{Go, Pass, "container/", ""},
	{Go, Pass, "context.", ""},
	{Go, Pass, "crypto/", ""},
	{Go, Pass, "encoding/base64.", ""},
	{Go, Pass, "encoding/binary.", ""},
	{Go, Pass, "encoding/hex.", ""},
	{Go, Pass, "errors.", ""},
	{Go, Pass, "fmt.", ""},
	{Go, Pass, "hash/", ""},
	{Go, Pass, "internal/abi.", ""},
	{Go, Pass, "internal/bytealg.", ""},
	{Go, Pass, "internal/chacha8rand.", ""},
	{Go, Pass, "internal/fmtsort.", ""},
	{Go, Pass, "internal/godebug.", ""},
	{Go, Pass, "internal/itoa.", ""},
	{Go, Pass, "internal/reflectlite.", ""},
	{Go, Pass, "internal/strconv.", ""},
	{Go, Pass, "internal/stringslite.", ""},
	{Go, Pass, "internal/sync.", ""},
	{Go, Pass, "io.", ""},
	{Go, Pass, "iter.", ""},
	{Go, Pass, "log.", ""},
	{Go, Pass, "log/", ""},
	{Go, Pass, "maps.", ""},
	{Go, Pass, "math.", ""},
	{Go, Pass, "math/", ""},
	{Go, Pass, "os.", ""},
	{Go, Pass, "os/", ""},
	{Go, Pass, "path.", ""},
	{Go, Pass, "reflect.", ""},
	{Go, Pass, "regexp.", ""},
	{Go, Pass, "regexp/", ""},
	{Go, Pass, "slices.", ""},
	{Go, Pass, "sort.", ""},
	{Go, Pass, "strconv.", ""},
	{Go, Pass, "strings.", ""},
	{Go, Pass, "sync.", ""},
	{Go, Pass, "sync/", ""},
	{Go, Pass, "time.", ""},
	{Go, Pass, "unicode.", ""},
	{Go, Pass, "unicode/", ""},
	{Go, Pass, "unique.", ""},

	// Go: the ORMs' own dependencies count for the ORM that calls them.
	{Go, Pass, "github.com/jinzhu/", ""},
	{Go, Pass, "github.com/hashicorp/golang-lru", ""},

	// Go: dbbench's own code (the targets' module is dbbench/go, gotarget is main).
	{Go, Own, "dbbench/", DbBench},
	{Go, Own, "main.", DbBench},

	// PHP: framework bootstrap. Class loading claims its subtree (the included file's
	// code and whatever it triggers); so does Doctrine's metadata loading.
	{PHP, Subtree, ".../autoload.php", Bootstrap},
	{PHP, Subtree, ".../autoload_real.php", Bootstrap},
	{PHP, Subtree, ".../autoload_static.php", Bootstrap},
	{PHP, Subtree, "Composer\\Autoload\\", Bootstrap},
	{PHP, Subtree, "...php/bootstrap.php", Bootstrap},
	{PHP, Subtree, "Doctrine\\ORM\\Mapping\\ClassMetadataFactory::", Bootstrap},
	{PHP, Subtree, "Doctrine\\ORM\\Mapping\\Driver\\", Bootstrap},
	{PHP, Subtree, "Doctrine\\Persistence\\Mapping\\", Bootstrap},
	{PHP, Own, "Illuminate\\Container\\", Bootstrap},
	{PHP, Own, "Illuminate\\Database\\Capsule\\Manager::__construct", Bootstrap},
	{PHP, Own, "Illuminate\\Database\\Capsule\\Manager::setup", Bootstrap},
	{PHP, Own, "Illuminate\\Database\\Capsule\\Manager::addConnection", Bootstrap},
	{PHP, Own, "Illuminate\\Database\\Capsule\\Manager::bootEloquent", Bootstrap},
	{PHP, Own, "Illuminate\\Database\\Capsule\\Manager::setAsGlobal", Bootstrap},
	{PHP, Own, "Illuminate\\Database\\Capsule\\Manager::setEventDispatcher", Bootstrap},
	{PHP, Pass, "Illuminate\\Database\\Capsule\\", ""},
	{PHP, Own, "Illuminate\\Database\\DatabaseManager::", Bootstrap},
	{PHP, Own, "Illuminate\\Database\\ConfigurationUrlParser::", Bootstrap},
	{PHP, Own, "Doctrine\\ORM\\ORMSetup::", Bootstrap},
	{PHP, Own, "Doctrine\\ORM\\Configuration::", Bootstrap},
	{PHP, Own, "Doctrine\\ORM\\EntityManager::create", Bootstrap},
	{PHP, Own, "Doctrine\\ORM\\EntityManager::__construct", Bootstrap},
	{PHP, Own, "Doctrine\\DBAL\\Configuration::", Bootstrap},

	// PHP: connection set-up: new PDO and the statements sent right after it
	// (Laravel's MySqlConnector::configureEncoding, setModes, …), DBAL's connect.
	{PHP, Subtree, "Illuminate\\Database\\Connectors\\", Connect},
	{PHP, Subtree, "{closure:.../Illuminate/Database/Connectors/", Connect}, // the lazy PDO resolver
	{PHP, Subtree, "{closure:.../illuminate/database/Connectors/", Connect},
	{PHP, Subtree, "Doctrine\\DBAL\\DriverManager::", Connect},
	{PHP, Subtree, "Doctrine\\DBAL\\Connection::connect", Connect},
	{PHP, Subtree, "Doctrine\\DBAL\\Connection::detectDatabasePlatform", Connect},
	{PHP, Subtree, "Doctrine\\DBAL\\Connection::getServerVersion", Connect},
	{PHP, Subtree, "Doctrine\\DBAL\\Driver\\PDO\\MySQL\\Driver::connect", Connect},

	// PHP: query building and SQL generation.
	{PHP, Own, "Illuminate\\Database\\Query\\", Builder},
	{PHP, Own, "Illuminate\\Database\\Grammar::", Builder},
	{PHP, Own, "Doctrine\\DBAL\\Query\\", Builder},
	{PHP, Own, "Doctrine\\DBAL\\Platforms\\", Builder},
	{PHP, Own, "Doctrine\\DBAL\\SQL\\", Builder},
	{PHP, Own, "Doctrine\\DBAL\\ExpandArrayParameters", Builder},
	{PHP, Own, "Doctrine\\ORM\\Query\\", Builder},
	{PHP, Own, "Doctrine\\ORM\\Persisters\\", Builder},

	// PHP: model hydration and the rest of each ORM.
	{PHP, Own, "Illuminate\\Database\\Eloquent\\", ORM},
	{PHP, Own, "Doctrine\\ORM\\", ORM},
	{PHP, Own, "Doctrine\\ORM\\Internal\\Hydration\\", ORM},
	{PHP, Own, "Doctrine\\ORM\\UnitOfWork::", ORM},
	{PHP, Own, "Doctrine\\Persistence\\", ORM},
	{PHP, Own, "Doctrine\\Common\\Proxy\\", ORM},
	{PHP, Own, "Doctrine\\Instantiator\\", ORM},

	// PHP: the layer between the builder and PDO (bindings, events, type conversion).
	{PHP, Own, "Illuminate\\Database\\Connection::", DBLayer},
	{PHP, Own, "Illuminate\\Database\\MySqlConnection::", DBLayer},
	{PHP, Own, "Doctrine\\DBAL\\", DBLayer},

	// PHP: PDO, seen through the frames that call it (see above).
	{PHP, Own, "{closure:.../Illuminate/Database/Connection.php(", PDO},
	{PHP, Own, "{closure:.../illuminate/database/Connection.php(", PDO},
	{PHP, Own, "Illuminate\\Database\\Connection::bindValues", PDO},
	{PHP, Own, "Doctrine\\DBAL\\Driver\\PDO\\", PDO},

	// PHP: JSON (json_encode runs inside the frame that calls it).
	{PHP, Own, "DbBench\\Response::json", JSON},

	// PHP: the raw layers' own PDO calls (php/src/Layer/Raw.php keeps them in two
	// methods so a profile can tell them apart: query runs PDO, connect opens it).
	{PHP, Own, "DbBench\\Layer\\Raw::query", PDO},
	{PHP, Subtree, "DbBench\\Layer\\Raw::connect", Connect},
	{PHP, Pass, "DbBench\\Reconnect::", ""},

	// PHP: the resident worker's HTTP server (php/src/Server/), and the profiler itself
	// (php/src/Profile.php, php/profile-request.php: sampling and writing stacks).
	{PHP, Own, "DbBench\\Server\\", HTTP},
	{PHP, Own, "...php/bin/worker.php", HTTP},
	// php-fpm's CPU profile (join.go): nginx's CPU is the HTTP server's; php-fpm's own
	// outside a sampled request is mostly the engine's start and end of a request
	// (freeing what the request built, opcache's checks), the runtime's.
	{PHP, Own, NginxFrame, HTTP},
	{PHP, Own, FPMFrame, Runtime},
	{PHP, Subtree, "DbBench\\Profile::", Runtime},
	{PHP, Subtree, "{closure:...php/profile-request.php(", Runtime},
	{PHP, Pass, "...php/profile-request.php", ""},

	// PHP: dbbench's own code, and its front controller (file-scope code).
	{PHP, Own, "DbBench\\", DbBench},
	{PHP, Own, "...php/public/index.php", DbBench},

	// PHP: helpers count for their caller.
	{PHP, Pass, "{closure:", ""},
	{PHP, Pass, "Illuminate\\Support\\", ""},
	{PHP, Pass, "Illuminate\\Events\\", ""},
	{PHP, Pass, "Illuminate\\Database\\Events\\", ""},
	{PHP, Pass, "Doctrine\\Common\\Collections\\", ""},
	{PHP, Pass, "Doctrine\\Common\\Lexer\\", ""},
	{PHP, Pass, "Doctrine\\Common\\EventManager::", ""},
	{PHP, Pass, "Doctrine\\Deprecations\\", ""},
	{PHP, Pass, "Doctrine\\Inflector\\", ""},
	{PHP, Pass, "Psr\\", ""},
}
