-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 3: compress the large columns with lz4 instead of
-- the default pglz.  A histogram's two 1000-element arrays cost ~2.5 ms to
-- compress with pglz and ~0.1 ms with lz4 (measured with EXPLAIN ANALYZE
-- on PostgreSQL 15), which is most of the time an upload spends in the
-- database.  Existing rows keep their compression; new ones use lz4.

ALTER TABLE histograms
	ALTER COLUMN bucket_us SET COMPRESSION lz4,
	ALTER COLUMN counts SET COMPRESSION lz4;

ALTER TABLE artifacts ALTER COLUMN data SET COMPRESSION lz4;

ALTER TABLE runs ALTER COLUMN manifest SET COMPRESSION lz4;
