-- A database made by the native sqlite3 shell (build/native/sqlite3), for
-- the import tests: 8 KiB pages, WAL mode (the import turns it into a
-- rollback-journal file), an index and a few hundred KiB of data.
PRAGMA page_size=8192;
PRAGMA journal_mode=WAL;
CREATE TABLE items(id INTEGER PRIMARY KEY, name TEXT, qty INT);
INSERT INTO items(name, qty) VALUES ('apple', 3), ('pear', 5);
CREATE INDEX items_name ON items(name);
CREATE TABLE filler(b);
WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM c WHERE n<300) INSERT INTO filler SELECT randomblob(1000) FROM c;
