-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 6: one bug per regression.  Every verdict of the
-- same regression (board, testcase, tree, baseline and candidate kernel)
-- carries the same tag (rtlab:<16 hex digits>, also the bug's whiteboard),
-- so a later verdict finds the bug the first one filed and comments on it
-- instead of filing another.

ALTER TABLE reports ADD COLUMN regression text;

CREATE INDEX reports_regression ON reports (regression)
	WHERE bug_id IS NOT NULL;
