-- The related rows of the orders ops on PostgreSQL 15: orders.sql's columns with
-- PostgreSQL's types (bigint ids, as users.id). The comment marks the table as
-- dbbench's (schema.Marker).
CREATE TABLE orders (
  id      bigint  PRIMARY KEY,
  user_id bigint  NOT NULL,
  total   integer NOT NULL CHECK (total >= 0)
);
CREATE INDEX user_latest ON orders (user_id, id);
COMMENT ON TABLE orders IS 'dbbench fixture table: P orders per user, total(id); every run that reads it replaces it';
