-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 18: an upload's verdict costs the same with a
-- year stored as with a day.
--
-- The kernels of a series (board, testcase) with their first run and
-- whether any of their runs is complete: what the default baseline is
-- chosen from ("the kernel before the candidate").  Grouping the series'
-- runs for that on every upload grew with the series; this table holds
-- one row per series and kernel, kept by triggers on runs so that every
-- writer (uploads, imports, the benchmarks' bulk fill) keeps it right.
CREATE TABLE series_kernels (
	board_id	integer NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
	testcase_id	integer NOT NULL REFERENCES testcases(id) ON DELETE CASCADE,
	kernel_id	integer NOT NULL REFERENCES kernels(id) ON DELETE CASCADE,
	first_at	timestamptz NOT NULL,	-- min(runs.created_at)
	complete	boolean NOT NULL,	-- any run 'complete'
	PRIMARY KEY (board_id, testcase_id, kernel_id)
);
-- "The newest kernel first run before the candidate's", walked backwards.
CREATE INDEX series_kernels_order
	ON series_kernels (board_id, testcase_id, first_at, kernel_id);

INSERT INTO series_kernels
	SELECT board_id, testcase_id, kernel_id, min(created_at),
	       bool_or(status = 'complete')
	FROM runs GROUP BY 1, 2, 3;

-- New runs: one upsert per statement, which writes only when the row
-- changes (a kernel's first complete run, or an earlier first run).
CREATE FUNCTION series_kernels_add() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO series_kernels AS s
		SELECT board_id, testcase_id, kernel_id, min(created_at),
		       bool_or(status = 'complete')
		FROM new_runs GROUP BY 1, 2, 3
	ON CONFLICT (board_id, testcase_id, kernel_id) DO UPDATE
		SET first_at = least(s.first_at, EXCLUDED.first_at),
		    complete = s.complete OR EXCLUDED.complete
		WHERE EXCLUDED.first_at < s.first_at
		   OR (EXCLUDED.complete AND NOT s.complete);
	RETURN NULL;
END $$;

-- Changed or removed runs (rare: maintenance by hand): the series
-- kernels they touched are counted again from their runs.  An update
-- that leaves the series, kernel, status and time alone (a job id set
-- afterwards) costs nothing.
CREATE FUNCTION series_kernels_recount(b integer, t integer, k integer)
RETURNS void LANGUAGE sql AS $$
	DELETE FROM series_kernels
		WHERE (board_id, testcase_id, kernel_id) = (b, t, k);
	INSERT INTO series_kernels
		SELECT board_id, testcase_id, kernel_id, min(created_at),
		       bool_or(status = 'complete')
		FROM runs
		WHERE (board_id, testcase_id, kernel_id) = (b, t, k)
		GROUP BY 1, 2, 3;
$$;

CREATE FUNCTION series_kernels_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM series_kernels_recount(board_id, testcase_id, kernel_id)
		FROM (SELECT DISTINCT board_id, testcase_id, kernel_id
		      FROM old_runs) o;
	RETURN NULL;
END $$;

CREATE FUNCTION series_kernels_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM series_kernels_recount(x.board_id, x.testcase_id, x.kernel_id)
		FROM (SELECT DISTINCT u.board_id, u.testcase_id, u.kernel_id
		      FROM old_runs o JOIN new_runs n USING (id),
		      LATERAL (VALUES (o.board_id, o.testcase_id, o.kernel_id),
				      (n.board_id, n.testcase_id, n.kernel_id))
			      u (board_id, testcase_id, kernel_id)
		      WHERE (o.board_id, o.testcase_id, o.kernel_id,
			     o.status, o.created_at) IS DISTINCT FROM
			    (n.board_id, n.testcase_id, n.kernel_id,
			     n.status, n.created_at)) x;
	RETURN NULL;
END $$;

CREATE TRIGGER runs_series_kernels_insert AFTER INSERT ON runs
	REFERENCING NEW TABLE AS new_runs
	FOR EACH STATEMENT EXECUTE FUNCTION series_kernels_add();
CREATE TRIGGER runs_series_kernels_update AFTER UPDATE ON runs
	REFERENCING OLD TABLE AS old_runs NEW TABLE AS new_runs
	FOR EACH STATEMENT EXECUTE FUNCTION series_kernels_updated();
CREATE TRIGGER runs_series_kernels_delete AFTER DELETE ON runs
	REFERENCING OLD TABLE AS old_runs
	FOR EACH STATEMENT EXECUTE FUNCTION series_kernels_deleted();

-- A verdict is replaced only while no report names it: that check looks
-- the verdict up in the reports instead of reading them all.
CREATE INDEX reports_verdict ON reports (verdict_id);
