-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 21: a board's open jobs by index.  The boards
-- table of the overview (and every worker's look at its board) asks each
-- board for its running job and its count of queued ones; through
-- jobs_queued (every open job of the farm, by id) that read all 10^4
-- queued jobs once per board: 145 ms for 100 boards.  This index answers
-- each board from its own entries.

CREATE INDEX jobs_board_open ON jobs (board_id, state, id)
	WHERE state IN ('queued', 'running');
