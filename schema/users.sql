-- The one table every target reads. Valid on MySQL 8.x and MariaDB 10.11.
-- utf8mb4 so names outside the BMP would survive; the fixture names use Latin-1
-- accents only, which is enough to catch a connection charset mistake.
-- The comment marks the table as dbbench's (schema.Marker): a run replaces a users
-- table only when it carries it, so a user's own table of that name is never touched.
--
-- id is AUTO_INCREMENT for the insert op (POST /users): the loader writes rows 1..N
-- with explicit ids, which moves InnoDB's counter to N+1, so every inserted row gets an
-- id above N and rows 1..N (name a pure function of id) stay as the fixtures made them.
-- visits is the update op's counter (POST /users/{id}/visits): 0 for every fixture row.
CREATE TABLE users (
  id     INT UNSIGNED NOT NULL AUTO_INCREMENT,
  name   VARCHAR(64)  NOT NULL,
  visits INT UNSIGNED NOT NULL DEFAULT 0,
  PRIMARY KEY (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  COMMENT = 'dbbench fixture table: rows 1..N, name(id); every run replaces it';
