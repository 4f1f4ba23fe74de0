-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 9: store artifacts out of line without
-- compression.  Artifacts are sent in ranges (a megabyte at a time); a
-- range of a compressed value costs PostgreSQL the decompression of the
-- whole value, so serving an N-megabyte artifact cost N whole
-- decompressions (a 504 MiB one took six minutes).  Uncompressed
-- out-of-line values are read chunk by chunk.  What the artifacts are
-- gains little from compression anyway: trace.dat files come compressed
-- by trace-cmd (lz4 saved 0.2 % on the test traces).  Rows stored before
-- keep their compression until rewritten (docs/database.md, upgrades).

ALTER TABLE artifacts ALTER COLUMN data SET STORAGE EXTERNAL;
