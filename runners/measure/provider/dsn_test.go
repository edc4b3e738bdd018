package provider_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"dbbench/fixtures"
	"dbbench/runners/measure/dbtest"
	. "dbbench/runners/measure/provider"
)

// A dsn server is the user's: a users table of theirs is refused by name, with the flag
// that allows replacing it, and left as it was; with the flag it is replaced, and their
// other tables stay byte for byte what they were; their orders table is refused as users
// was when a run would load orders. A user without the rights a run needs is refused
// before anything is loaded, each missing privilege named.
func TestDSNProviderLeavesTheUsersTablesAlone(t *testing.T) {
	ctx := context.Background()
	srv := dbtest.Start(t, 10)
	admin, err := srv.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	srv.RootSQL(t, `CREATE DATABASE app;
		CREATE TABLE app.users (id INT PRIMARY KEY, email VARCHAR(100));
		INSERT INTO app.users VALUES (1, 'customer@example.com');
		CREATE TABLE app.orders (id INT PRIMARY KEY, total DECIMAL(10,2));
		INSERT INTO app.orders VALUES (1, 9.99), (2, 120.00);
		CREATE USER 'limited'@'127.0.0.1' IDENTIFIED BY 'Limited-Pw-1';
		GRANT CREATE, DROP, INSERT, SELECT ON app.* TO 'limited'@'127.0.0.1'`)
	checksums := func() string {
		var out []string
		for _, table := range []string{"app.users", "app.orders"} {
			var name, sum string
			if err := admin.QueryRow("CHECKSUM TABLE "+table+" EXTENDED").Scan(&name, &sum); err != nil {
				t.Fatal(err)
			}
			out = append(out, name+"="+sum)
		}
		return strings.Join(out, " ")
	}
	before := checksums()
	dsn := strings.Replace(srv.DSN(), "/dbbench", "/app", 1)

	_, err = Start(ctx, Options{Kind: "dsn", DSN: dsn, Rows: 10, MaxConnections: 10, Log: logTo{t}})
	var foreign *fixtures.ForeignTableError
	if !errors.As(err, &foreign) || !strings.Contains(err.Error(), "app.users") || !strings.Contains(err.Error(), "--replace-table users") {
		t.Fatalf("a foreign users table: Start = %v, want a refusal naming app.users and --replace-table users", err)
	}
	if after := checksums(); after != before {
		t.Fatalf("the refused run changed the tables: %s, then %s", before, after)
	}

	limited := strings.Replace(dsn, srv.Config.User+":"+srv.Config.Passwd+"@", "limited:Limited-Pw-1@", 1)
	_, err = Start(ctx, Options{Kind: "dsn", DSN: limited, Rows: 10, MaxConnections: 10, Log: logTo{t}})
	if err == nil || !strings.Contains(err.Error(), "SUPER") || !strings.Contains(err.Error(), "mysql.general_log") {
		t.Fatalf("a user without SUPER: Start = %v, want a refusal naming SUPER and mysql.general_log", err)
	}
	if after := checksums(); after != before {
		t.Fatalf("the refused run changed the tables: %s, then %s", before, after)
	}

	db, err := Start(ctx, Options{Kind: "dsn", DSN: dsn, Rows: 10, MaxConnections: 10, Log: logTo{t}, ReplaceTable: "users"})
	if err != nil {
		t.Fatalf("with --replace-table users: %v", err)
	}
	db.Close()
	var orders string
	if err := admin.QueryRow("CHECKSUM TABLE app.orders EXTENDED").Scan(new(string), &orders); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(before, "app.orders="+orders) {
		t.Fatalf("app.orders changed: %s before, %s after", before, orders)
	}
	// Now the table is dbbench's: the next run replaces it without being asked.
	db, err = Start(ctx, Options{Kind: "dsn", DSN: dsn, Rows: 20, MaxConnections: 10, Log: logTo{t}})
	if err != nil {
		t.Fatalf("a second run on dbbench's own table: %v", err)
	}
	db.Close()
	// The orders ops' fixtures would replace orders: the app's is refused as users was,
	// and left as it was.
	_, err = Start(ctx, Options{Kind: "dsn", DSN: dsn, Rows: 10, OrdersPerUser: 3, MaxConnections: 10, Log: logTo{t}})
	if !errors.As(err, &foreign) || !strings.Contains(err.Error(), "app.orders") || !strings.Contains(err.Error(), "--replace-table orders") {
		t.Fatalf("a foreign orders table: Start = %v, want a refusal naming app.orders and --replace-table orders", err)
	}
	if err := admin.QueryRow("CHECKSUM TABLE app.orders EXTENDED").Scan(new(string), &orders); err != nil || !strings.Contains(before, "app.orders="+orders) {
		t.Fatalf("the refused run changed app.orders: %s before, %s after (%v)", before, orders, err)
	}
	if _, err := Start(ctx, Options{Kind: "dsn", DSN: dsn, Rows: 10, ReplaceTable: "accounts", Log: logTo{t}}); err == nil || !strings.Contains(err.Error(), "only its own tables") {
		t.Fatalf("--replace-table accounts = %v, want a refusal", err)
	}
}

type logTo struct{ t *testing.T }

func (l logTo) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// Every run starts from the fixtures, whatever the run before it left: its inserted
// rows and counted visits go with the table, which the loader drops and creates again,
// so the next insert's id is N+1 again and no visit is counted.
func TestEachRunStartsFromTheFixtures(t *testing.T) {
	ctx := context.Background()
	srv := dbtest.Start(t, 10)
	admin, err := srv.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, q := range []string{"INSERT INTO users (name) VALUES ('left by a run'), ('and another')", "UPDATE users SET visits = visits + 3 WHERE id <= 5"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := fixtures.VerifyFresh(ctx, admin, 10); err == nil {
		t.Fatal("VerifyFresh passed a table with inserted rows and visits")
	}
	if _, err := admin.Exec("DELETE FROM users WHERE id > 10"); err != nil {
		t.Fatal(err)
	}
	if err := fixtures.VerifyFresh(ctx, admin, 10); err == nil || !strings.Contains(err.Error(), "15 visits") {
		t.Fatalf("VerifyFresh with visits counted = %v, want an error naming them", err)
	}
	db, err := Start(ctx, Options{Kind: "dsn", DSN: srv.DSN(), Rows: 10, MaxConnections: 10, Log: logTo{t}})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := fixtures.VerifyFresh(ctx, admin, 10); err != nil {
		t.Fatalf("after the next run's load: %v", err)
	}
	res, err := admin.Exec("INSERT INTO users (name) VALUES ('the next run''s first')")
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := res.LastInsertId(); id != 11 {
		t.Fatalf("the next run's first insert got id %d, want 11 (N+1)", id)
	}
}
