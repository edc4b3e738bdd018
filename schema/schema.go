// Package schema holds the DDL of the one table every target reads, so the loader
// and the tests use the very file a person reads.
package schema

import _ "embed"

// Users is the CREATE TABLE statement for `users`, valid on MySQL 8 and MariaDB 10.11.
//
//go:embed users.sql
var Users string
