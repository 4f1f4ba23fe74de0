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
