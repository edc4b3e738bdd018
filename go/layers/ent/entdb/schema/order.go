package schema

import (
	"entgo.io/ent"
	"entgo.io/ent/dialect/entsql"
	"entgo.io/ent/schema"
	"entgo.io/ent/schema/edge"
	"entgo.io/ent/schema/field"
)

// Order holds the schema of the orders table, as schema/orders.sql defines it:
// orders(id INT UNSIGNED PRIMARY KEY, user_id INT UNSIGNED NOT NULL, total INT
// UNSIGNED NOT NULL), the fixture loader's table (ent creates nothing, so no foreign
// key exists whatever migrate/schema.go describes).
type Order struct {
	ent.Schema
}

// Annotations names the table (ent would say "orders" too; saying it keeps it so).
func (Order) Annotations() []schema.Annotation {
	return []schema.Annotation{entsql.Annotation{Table: "orders"}}
}

// Fields: an explicit uint32 "id", as User's; user_id is the column of the "user"
// edge (Field below), so ent reads and filters the existing column rather than its
// default foreign-key name (user_orders).
func (Order) Fields() []ent.Field {
	return []ent.Field{
		field.Uint32("id").Immutable(),
		field.Uint32("user_id"),
		field.Uint32("total"),
	}
}

// Edges: the owner, the inverse of User's "orders" edge, stored in user_id.
func (Order) Edges() []ent.Edge {
	return []ent.Edge{
		edge.From("user", User.Type).Ref("orders").Field("user_id").Unique().Required(),
	}
}
