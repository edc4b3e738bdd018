# dbbench: `make db-bench` measures, `make test` tests. Both install what is missing.
SHELL := /bin/bash
.DEFAULT_GOAL := help
# Debian keeps mariadbd, php-fpm8.2 and nginx in /usr/sbin, which a non-login PATH may lack.
export PATH := $(PATH):/usr/local/sbin:/usr/sbin:/sbin
GO_MODULES := ./dsn/... ./fixtures/... ./schema/... ./runners/... ./go/...
# The runners' modules, tested in the workspace; go/ is tested as its own module.
RUNNER_MODULES := ./dsn/... ./fixtures/... ./schema/... ./runners/...
# The slowest test packages (README.md, "Testing", has their times); test-go starts them
# first. soak mostly waits on its windows, so it runs beside cmd/dbbench, which does not:
# run beside cmd/dbbench made make test longer (README.md, "Testing").
SLOW_TESTS := ./runners/chaos ./runners/measure/target ./runners/measure/run ./runners/soak ./runners/cmd/dbbench
BIN := $(CURDIR)/bin
PRESET ?= quick
# The database server(s) make db-bench, ab, the sweeps and the soak measure on: mariadb
# (the default), mysql, or, for db-bench and ab, a list (DB=mariadb,mysql).
DB ?= mariadb
# A count of executions, not a duration: with a duration, Go 1.26's fuzz coordinator can
# report "context deadline exceeded" as a failure when the time runs out while a worker
# is mid-call on a busy machine (a race in the coordinator, fixed in Go 1.27; README.md,
# "Testing", says when it happened here and what 50000 takes).
FUZZTIME ?= 50000x

.PHONY: help deps deps-test build test test-go test-php fuzz vet golden db-bench db-up ab ab-args pool-sweep rtt-sweep soak clean ent-generate

help:
	@echo "make db-bench   install what is missing, start an embedded MariaDB, measure the quick preset, report"
	@echo "make test       install what is missing, run every test (Go, PHP, end to end)"
	@echo "make build      build bin/dbbench and bin/gotarget"
	@echo "make ab A=REV B=REV  did the upgrade cost anything? both revisions (or WORKTREE) built and measured side by side (AB_ARGS='--fail-on regression')"
	@echo "make chaos      kill, signal and flood the real binaries; print what survived (a shortened form runs in make test)"
	@echo "make deps       install what a run on DB needs (Debian packages, Go modules; MySQL 8 for DB=mysql), and only that"
	@echo "make golden     rewrite the golden files (report.md, compare, sweep and soak reports) after a change meant to alter them"
	@echo "make pool-sweep how large a pool: each pool's capacity at a p99 target 0.5 ms from the database, measured and modelled (~15 min; POOL_ARGS='--rtt 1ms --rate 1500')"
	@echo "make rtt-sweep  prepare vs prepared vs interpolate at 0, 0.2, 1, 5 ms each way (~10 min)"
	@echo "make soak       the variants most at risk at 70% of capacity, all at once, for 60 min: does anything grow? (SOAK_DURATION=5m for a short one)"

# What a run on $(DB) needs, and nothing more: a MariaDB run fetches no MySQL and
# installs no PostgreSQL; make test installs every server's and the tests' own.
deps:
	@bash runners/install-deps.sh $(DB)

deps-test:
	@bash runners/install-deps.sh --tests mariadb mysql postgres pgbouncer

# The target is its own module: go/go.mod alone decides its dependencies, as an
# application's would (runners/measure/revision/build.go says why).
build: deps
	go build -o $(BIN)/dbbench ./runners/cmd/dbbench
	cd go && GOWORK=off go build -o $(abspath $(BIN))/gotarget ./cmd/gotarget

vet:
	@test -z "$$(gofmt -l dsn fixtures schema runners go)" || { gofmt -l dsn fixtures schema runners go; echo "gofmt needed"; exit 1; }
	go vet $(RUNNER_MODULES)
	cd go && GOWORK=off go vet ./... && GOWORK=off go vet -tags leak ./cmd/gotarget

test: deps-test build vet test-php test-go fuzz

test-go:
	# Two packages at a time: most integration tests wait on wall-clock windows (a soak's
	# minute, a sweep's slices) more than they use the cores, and none may depend on the
	# machine's speed (a test that does is a bug), so they share the two cores. The
	# slowest packages are named first: go test starts packages in the order given, and
	# the slowest (runners/measure/target) would otherwise start late and run alone for
	# its last minutes.
	go test -count=1 -p 2 -timeout 30m $(SLOW_TESTS) $(RUNNER_MODULES)
	# go/ as its own module, as make build builds it (in the workspace, runners/go.mod's
	# newer versions would be linked), then the leak build's own test.
	cd go && GOWORK=off go test -count=1 -p 2 -timeout 10m ./...
	cd go && GOWORK=off go test -count=1 -tags leak ./cmd/gotarget

# The packages whose tests import runners/internal/golden: only these define -update, and
# go test fails a package on a flag it does not define, so not `go test ./... -update`.
GOLDEN_PKGS = $$(go list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' $(GO_MODULES) \
	| awk '{for (i = 2; i <= NF; i++) if ($$i == "dbbench/runners/internal/golden") { print $$1; break }}')

# Rewrites every golden file from what the code renders now; `git diff` then shows what
# a reader will see change.
golden:
	go test -count=1 -run Golden $(GOLDEN_PKGS) -update

test-php:
	cd php && phpunit --colors=never

fuzz:
	cd go && GOWORK=off go test -run '^$$' -fuzz FuzzParseID -fuzztime $(FUZZTIME) ./server

# Every fault scenario at every point (runners/chaos); run from the package directory so
# go test streams the table TestMain prints.
chaos: deps-test
	cd runners/chaos && CHAOS=full go test -count=1 -timeout 30m

db-bench: build
	$(BIN)/dbbench run --preset $(PRESET) --db $(DB)

db-up: build
	$(BIN)/dbbench db up --dsn-out $(CURDIR)/bin/dsn

# dbbench ab: revisions A and B (a commit, branch, tag, or WORKTREE) built and measured in
# one run (README.md, "Did the upgrade cost anything?"); AB_ARGS passes flags
# (make ab A=origin/main B=WORKTREE AB_ARGS='--fail-on regression').
ab: ab-args build
	$(BIN)/dbbench ab --db $(DB) $(AB_ARGS) $(A) $(B)

ab-args:
	@test -n "$(A)" -a -n "$(B)" || { echo "usage: make ab A=REV B=REV [AB_ARGS='--preset smoke --fail-on regression']"; exit 2; }

# Sweeps write to reports/runs/<stamp>-pool-sweep/ (…-rtt-sweep/) unless SWEEP_OUT is set;
# POOL_ARGS and RTT_ARGS pass flags (make pool-sweep POOL_ARGS='--rtt 1ms --rate 1500').
pool-sweep: build
	$(BIN)/dbbench sweep pool --db $(DB) $(if $(SWEEP_OUT),--out $(SWEEP_OUT)) $(POOL_ARGS)

rtt-sweep: build
	$(BIN)/dbbench sweep rtt --db $(DB) $(if $(SWEEP_OUT),--out $(SWEEP_OUT)) $(RTT_ARGS)

# A soak writes to reports/runs/<stamp>-soak/ unless SOAK_OUT is set; an hour unless
# SOAK_DURATION is (plus about half a minute to start and measure capacity).
SOAK_DURATION ?= 60m
soak: build
	$(BIN)/dbbench soak --db $(DB) --duration $(SOAK_DURATION) $(if $(SOAK_OUT),--out $(SOAK_OUT))

# Regenerates the ent layer's committed code (go/layers/ent/entdb) from its schema, with the
# ent version go/go.mod pins, so generator and runtime always match.
ent-generate:
	cd go && go run entgo.io/ent/cmd/ent@$$(go list -m -f '{{.Version}}' entgo.io/ent) generate --feature sql/lock ./layers/ent/entdb/schema

clean:
	rm -rf $(BIN)
