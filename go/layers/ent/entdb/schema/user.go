// Package schema is the ent schema of the one table, as schema/users.sql defines it:
// users(id INT UNSIGNED PRIMARY KEY, name VARCHAR(64) NOT NULL). `make ent-generate`
// turns it into package entdb. The table exists already: nothing runs ent's migrations.
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/field"
)

// User holds the schema of the users table.
type User struct {
	ent.Schema
}

// Annotations names the table (ent would say "users" too; saying it keeps it so).
func (User) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "users"}}
}

// Fields: an explicit "id" field replaces ent's default int id with INT UNSIGNED.
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.Uint32("id").Immutable(),
		field.String("name").MaxLen(64).NotEmpty(),
	}
}
