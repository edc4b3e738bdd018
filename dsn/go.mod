module dbbench/dsn

go 1.26.8

// The lowest version with what this package calls, not the newest: a module that
// requires it (go/, the Go target) keeps the driver version its own go.mod names, so
// that dbbench ab can measure a driver upgrade (runners/measure/revision/build.go).
require github.com/go-sql-driver/mysql v1.8.1

require filippo.io/edwards25519 v1.1.0 // indirect
