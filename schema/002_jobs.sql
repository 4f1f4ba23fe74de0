-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 2: what the job queue needs to know before a run
-- exists.  A job names its kernel by definition ("debian-rt", a path, or
-- "host" for the kernel a local board runs); the kernels row (kernel_id)
-- is only known once a run has reported the kernel's identity, so it
-- becomes optional and is filled when the job is done.

ALTER TABLE jobs ALTER COLUMN kernel_id DROP NOT NULL;

ALTER TABLE jobs
	ADD COLUMN kernel	text NOT NULL DEFAULT 'host',
	ADD COLUMN testcase_file text,			-- absolute path of the YAML
	ADD COLUMN duration_s	integer CHECK (duration_s > 0),
	ADD COLUMN max_attempts	integer NOT NULL DEFAULT 3
				CHECK (max_attempts > 0),
	ADD COLUMN phase	text,			-- what the worker is doing
	ADD COLUMN run_uuid	uuid;			-- the run a finished job made

-- A lease is only meaningful while a worker holds the job.
ALTER TABLE jobs ADD CONSTRAINT jobs_lease_running
	CHECK (state = 'running' OR lease_until IS NULL);
