-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 19: board health.  A board is in service
-- ('ready'), taken out by a maintainer ('offline'), or taken out by the
-- lab ('unhealthy': a failed health job, or a run whose environment
-- drifted from the one the board was last known healthy in); state_reason
-- says why.  Workers claim no job of a board out of service, and while a
-- board has a health job queued or running its other jobs wait.  Runs
-- stored while a board is out of service carry the flag
-- "board_out_of_service" and are never compared with the board's history.

ALTER TABLE boards
	ADD COLUMN state	text NOT NULL DEFAULT 'ready'
				CHECK (state IN ('ready', 'offline', 'unhealthy')),
	ADD COLUMN state_reason	text,
	ADD COLUMN state_changed_at timestamptz,
	-- the environment (manifest.json "environment") the board was last
	-- known healthy in: set by a passed health job, or by the first
	-- complete run when unset (rtlab board enable clears it)
	ADD COLUMN environment	jsonb,
	ADD COLUMN environment_run_id bigint REFERENCES runs ON DELETE SET NULL,
	-- the last health job's outcome
	ADD COLUMN health_result text CHECK (health_result IN ('pass', 'fail')),
	ADD COLUMN health_reason text,
	ADD COLUMN health_job_id bigint REFERENCES jobs ON DELETE SET NULL,
	ADD COLUMN health_at	timestamptz;

-- A reason goes with a board out of service.
ALTER TABLE boards ADD CONSTRAINT boards_state_reason
	CHECK (state = 'ready' OR state_reason IS NOT NULL);

-- A health job boots the board's reference kernel and runs the
-- calibration's testcase briefly; its verdict compares with
-- boards.calibration instead of a baseline.
ALTER TABLE jobs ADD COLUMN kind text NOT NULL DEFAULT 'run'
	CHECK (kind IN ('run', 'health'));
CREATE INDEX jobs_health_pending ON jobs (board_id)
	WHERE kind = 'health' AND state IN ('queued', 'running');

-- series_kernels (schema 18) says whether a kernel of a series has a
-- complete run to be a baseline with: a run of a board out of service
-- (runs.flags board_out_of_service, set when it is stored) is none.
CREATE OR REPLACE FUNCTION series_kernels_add() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	INSERT INTO series_kernels AS s
		SELECT board_id, testcase_id, kernel_id, min(created_at),
		       bool_or(status = 'complete' AND
			       NOT flags ? 'board_out_of_service')
		FROM new_runs GROUP BY 1, 2, 3
	ON CONFLICT (board_id, testcase_id, kernel_id) DO UPDATE
		SET first_at = least(s.first_at, EXCLUDED.first_at),
		    complete = s.complete OR EXCLUDED.complete
		WHERE EXCLUDED.first_at < s.first_at
		   OR (EXCLUDED.complete AND NOT s.complete);
	RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION series_kernels_recount(b integer, t integer,
						  k integer)
RETURNS void LANGUAGE sql AS $$
	DELETE FROM series_kernels
		WHERE (board_id, testcase_id, kernel_id) = (b, t, k);
	INSERT INTO series_kernels
		SELECT board_id, testcase_id, kernel_id, min(created_at),
		       bool_or(status = 'complete' AND
			       NOT flags ? 'board_out_of_service')
		FROM runs
		WHERE (board_id, testcase_id, kernel_id) = (b, t, k)
		GROUP BY 1, 2, 3;
$$;

-- A run flagged afterwards (by hand) counts again too.
CREATE OR REPLACE FUNCTION series_kernels_updated() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM series_kernels_recount(x.board_id, x.testcase_id, x.kernel_id)
		FROM (SELECT DISTINCT u.board_id, u.testcase_id, u.kernel_id
		      FROM old_runs o JOIN new_runs n USING (id),
		      LATERAL (VALUES (o.board_id, o.testcase_id, o.kernel_id),
				      (n.board_id, n.testcase_id, n.kernel_id))
			      u (board_id, testcase_id, kernel_id)
		      WHERE (o.board_id, o.testcase_id, o.kernel_id,
			     o.status, o.created_at,
			     o.flags ? 'board_out_of_service') IS DISTINCT FROM
			    (n.board_id, n.testcase_id, n.kernel_id,
			     n.status, n.created_at,
			     n.flags ? 'board_out_of_service')) x;
	RETURN NULL;
END $$;
