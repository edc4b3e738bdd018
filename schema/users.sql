-- The one table every target reads. Valid on MySQL 8.x and MariaDB 10.11.
-- utf8mb4 so names outside the BMP would survive; the fixture names use Latin-1
-- accents only, which is enough to catch a connection charset mistake.
-- The comment marks the table as dbbench's (schema.Marker): a run replaces a users
-- table only when it carries it, so a user's own table of that name is never touched.
CREATE TABLE users (
  id   INT UNSIGNED NOT NULL,
  name VARCHAR(64)  NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  COMMENT = 'dbbench fixture table: rows 1..N, name(id); every run replaces it';
