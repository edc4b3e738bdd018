package provider

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// Privileges are what a run needs on a dsn server, in the order preflight checks them:
// README.md ("Providers") lists them for people.
var Privileges = []string{
	"CREATE, DROP, INSERT and SELECT on the database (the users table)",
	"SUPER (SET GLOBAL general_log and log_output during the round-trip count)",
	"SELECT on mysql.general_log",
}

// probeTable is the scratch table the preflight creates and drops at once; its comment
// marks it as dbbench's, like the fixtures table.
const probeTable = "dbbench_preflight"

// probeComment marks the scratch table as dbbench's, for a run that finds it left over.
const probeComment = "dbbench preflight probe: dropped at once"

// preflight checks, before anything is loaded, that the server grants what the run will
// do, and names every privilege that is missing. It changes nothing that stays: a
// scratch table of dbbench's own is created and dropped, and the general log settings
// are set to the values they have.
func preflight(ctx context.Context, pool *sql.DB) error {
	var missing []string
	if err := probeTableRights(ctx, pool); err != nil {
		var fe *foreignProbe
		if errors.As(err, &fe) {
			return err
		}
		missing = append(missing, err.Error())
	}
	for _, p := range []struct{ what, query string }{
		{"SUPER (to switch the general log on: SET GLOBAL general_log)", "SET GLOBAL general_log = @@GLOBAL.general_log"},
		{"SUPER (SET GLOBAL log_output)", "SET GLOBAL log_output = @@GLOBAL.log_output"},
		{"SELECT on mysql.general_log", "SELECT COUNT(*) FROM mysql.general_log WHERE 1 = 0"},
	} {
		if _, err := pool.ExecContext(ctx, p.query); err != nil {
			if !denied(err) {
				return fmt.Errorf("preflight: %s: %w", p.query, err)
			}
			missing = append(missing, p.what)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("the DSN's user lacks what a run needs: %s (README.md, \"Providers\", lists the privileges)", strings.Join(missing, "; "))
	}
	return nil
}

type foreignProbe struct{ table string }

func (f *foreignProbe) Error() string {
	return fmt.Sprintf("preflight: a table %s exists and is not dbbench's; drop or rename it, or use a database of dbbench's own", f.table)
}

// probeTableRights creates, fills, reads and drops dbbench's scratch table, and says
// which of those the server refused.
func probeTableRights(ctx context.Context, pool *sql.DB) error {
	create := "CREATE TABLE " + probeTable + " (id INT PRIMARY KEY) COMMENT = '" + probeComment + "'"
	if _, err := pool.ExecContext(ctx, create); err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) && me.Number == 1050 { // table exists: ours from a run that died here?
			var comment string
			q := "SELECT TABLE_COMMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?"
			if pool.QueryRowContext(ctx, q, probeTable).Scan(&comment) != nil || comment != probeComment {
				return &foreignProbe{probeTable}
			}
			if _, err := pool.ExecContext(ctx, "DROP TABLE "+probeTable); err != nil {
				return errors.New("DROP on the database")
			}
			return probeTableRights(ctx, pool)
		}
		if denied(err) {
			return errors.New("CREATE on the database")
		}
		return fmt.Errorf("preflight: %w", err)
	}
	lacks, err := useProbe(ctx, pool, denied)
	if err != nil {
		return err
	}
	if len(lacks) > 0 {
		return fmt.Errorf("%s on the database", strings.Join(lacks, ", "))
	}
	return nil
}

// useProbe fills, reads and drops the scratch table just created, on either protocol,
// and lists the rights the server refused (refused tells a refusal from another
// error, which is returned); the table is dropped at the end in any case.
func useProbe(ctx context.Context, pool *sql.DB, refused func(error) bool) (lacks []string, err error) {
	defer pool.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS "+probeTable)
	for _, p := range []struct{ what, query string }{
		{"INSERT", "INSERT INTO " + probeTable + " VALUES (1)"},
		{"SELECT", "SELECT COUNT(*) FROM " + probeTable},
		{"DROP", "DROP TABLE " + probeTable},
	} {
		if _, err := pool.ExecContext(ctx, p.query); err != nil {
			if !refused(err) {
				return nil, fmt.Errorf("preflight: %w", err)
			}
			lacks = append(lacks, p.what)
		}
	}
	return lacks, nil
}

// denied says whether err is the server refusing a privilege.
func denied(err error) bool {
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		return false
	}
	switch me.Number {
	case 1044, 1045, 1142, 1143, 1227, 1370: // access denied to a database, a command, a column, needing SUPER, a routine
		return true
	}
	return false
}
