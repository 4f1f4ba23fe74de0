-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 20: bisections over the commits of a git tree
-- (docs/bisect.md).  A bisection says what its range is ('series': built
-- kernels in a tree's or a list's order; 'git': the first-parent commits
-- between two commits of a git tree), and a git range keeps each
-- position's commit as git described it when the range was made, so that
-- its report and log need no mirror.  A step says why it was decided
-- as it was where the verdicts do not (a commit that does not build).

ALTER TABLE bisections
	ADD COLUMN range_kind	text NOT NULL DEFAULT 'series'
				CHECK (range_kind IN ('series', 'git')),
	ADD COLUMN tree		text,
	-- git: [{id, subject, author}], one per position
	ADD COLUMN commits	jsonb;

ALTER TABLE bisect_steps
	ADD COLUMN reason	text;
