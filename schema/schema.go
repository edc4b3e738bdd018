// Package schema holds the DDL of the table every target reads (users) and of the
// related rows some ops read (orders), so the loader and the tests use the very file a
// person reads.
package schema

import (
	_ "embed"
	"strings"
)

// Users is the CREATE TABLE statement for `users`, valid on MySQL 8 and MariaDB 10.11.
//
//go:embed users.sql
var Users string

// UsersPostgres is the same table's DDL for PostgreSQL 15: CREATE TABLE and its
// COMMENT, each ending its line with ';'.
//
//go:embed users_postgres.sql
var UsersPostgres string

// Orders is the CREATE TABLE statement for `orders`, the related rows of the orders
// ops, valid on MySQL 8 and MariaDB 10.11.
//
//go:embed orders.sql
var Orders string

// OrdersPostgres is the same table's DDL for PostgreSQL 15, each statement ending its
// line with ';'.
//
//go:embed orders_postgres.sql
var OrdersPostgres string

// OrdersTable is the name of the table Orders creates.
const OrdersTable = "orders"

// Table is the name of the table Users creates.
const Table = "users"

// Marker starts the comment Users gives the table: a table that carries it is
// dbbench's, which a run may replace.
const Marker = "dbbench fixture table"

// Owned says whether a table comment marks the table as dbbench's.
func Owned(comment string) bool { return strings.HasPrefix(comment, Marker) }
