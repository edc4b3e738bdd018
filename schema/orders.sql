-- The related rows of the orders ops (users' orders: ../runners/matrix.yaml, ops), on
-- MySQL 8.x and MariaDB 10.11. Loaded only for a run whose variants read them
-- (fixtures.LoadOrders): a user u's orders are ids (u-1)*P+1 .. u*P for P orders per
-- user, total(id) cents each; "latest" is the highest id.
--
-- (user_id, id) is the index every form of the ops reads: a user's latest orders are
-- one range of it, read backwards. No foreign key: the reads do not need one, and a
-- row inserted by the insert op has no orders.
CREATE TABLE orders (
  id      INT UNSIGNED NOT NULL,
  user_id INT UNSIGNED NOT NULL,
  total   INT UNSIGNED NOT NULL,
  PRIMARY KEY (id),
  KEY user_latest (user_id, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci
  COMMENT = 'dbbench fixture table: P orders per user, total(id); every run that reads it replaces it';
