-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 12: a year of runs answered as fast as a day's.
--
-- A run's worst figures over its CPUs are kept on the run, written with
-- it, so that the overview and the trend read one row per run instead of
-- probing its histograms (whose rows are the large, compressed ones).
ALTER TABLE runs
	ADD COLUMN max_us	integer,
	ADD COLUMN p999_us	integer;

UPDATE runs r SET max_us = h.max_us, p999_us = h.p999_us
	FROM (SELECT run_id, max(max_us) AS max_us, max(p999_us) AS p999_us
	      FROM histograms GROUP BY run_id) h
	WHERE h.run_id = r.id;

-- "The kernels' first runs, newest first" (the overview) walks this
-- index once per kernel instead of grouping every run; it also serves
-- every "runs of this kernel" that runs_kernel served.
CREATE INDEX runs_kernel_created ON runs (kernel_id, created_at);
DROP INDEX runs_kernel;

-- One board's runs, newest first, a page at a time (GET /api/v1/runs).
CREATE INDEX runs_board_id ON runs (board_id, id);

-- "The verdict this run belongs to" (the run page) looks the run up in
-- the verdicts' run lists.
CREATE INDEX verdicts_candidate_runs ON verdicts USING gin (candidate_runs);
CREATE INDEX verdicts_baseline_runs ON verdicts USING gin (baseline_runs);

-- The regressions page and any list of one verdict kind, newest first.
CREATE INDEX verdicts_verdict_id ON verdicts (verdict, id);
