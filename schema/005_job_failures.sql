-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 5: why a job failed.  An attempt that ends without
-- a run (QEMU crashed or was killed, the host never ran it, the bundle
-- could not be handed over, the worker died) is the infrastructure's
-- failure, not the kernel's: it is counted here and the job is tried again;
-- a job that runs out of attempts that way fails as 'infrastructure'.  A
-- job whose run was stored but is not complete (boot_failed, panic, hang,
-- agent_error) fails as 'run'.

ALTER TABLE jobs
	ADD COLUMN infra_errors	integer NOT NULL DEFAULT 0
				CHECK (infra_errors >= 0),
	ADD COLUMN failure	text
				CHECK (failure IN ('run', 'infrastructure'));

-- Only a failed job has a failure.
ALTER TABLE jobs ADD CONSTRAINT jobs_failure_failed
	CHECK (failure IS NULL OR state = 'failed');
