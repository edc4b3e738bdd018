// Package schema is the ent schema of the tables, users as schema/users.sql defines it:
// users(id INT UNSIGNED AUTO_INCREMENT PRIMARY KEY, name VARCHAR(64) NOT NULL,
// visits INT UNSIGNED NOT NULL DEFAULT 0), and orders (order.go). `make ent-generate`
// turns it into package entdb, with the sql/lock feature (ForUpdate, for the update
// op's locking read). The tables exist already: nothing runs ent's migrations.
package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
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

// Fields: an explicit "id" field replaces ent's default int id with INT UNSIGNED; a
// Create that sets no id lets the database number the row (AUTO_INCREMENT).
func (User) Fields() []ent.Field {
	return []ent.Field{
		field.Uint32("id").Immutable(),
		field.String("name").MaxRuneLen(64).NotEmpty(), // VARCHAR(64) counts characters, MaxLen bytes
		field.Uint32("visits").Default(0),
	}
}

// Edges: a user's orders (one to many), stored in orders.user_id (Order's "user" edge).
func (User) Edges() []ent.Edge {
	return []ent.Edge{
		edge.To("orders", Order.Type),
	}
}
