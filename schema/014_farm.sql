-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 14: the farm.  Jobs get a priority (higher first:
-- bisection, then developer submissions, then nightly breadth) and say
-- where they came from, so the nightly tick can count what a kernel
-- already has; developer submissions; and the notifications sent, so a
-- regression is told once and its updates are threaded.

ALTER TABLE jobs
	ADD COLUMN priority	integer NOT NULL DEFAULT 50
				CHECK (priority BETWEEN 0 AND 100),
	ADD COLUMN origin	text,		-- 'farm', 'submission', NULL: by hand
	ADD COLUMN tree		text,		-- the farm's tree of the kernel
	ADD COLUMN submission_id bigint;

-- Workers claim the most urgent queued job first, oldest among equals.
CREATE INDEX jobs_claim_order ON jobs (priority DESC, id)
	WHERE state IN ('queued', 'running');
-- The tick counts a kernel's jobs per board and testcase.
CREATE INDEX jobs_farm_key ON jobs (kernel, board_id, testcase_id);

CREATE TABLE submissions (
	id		bigserial PRIMARY KEY,
	owner		text NOT NULL,			-- token name
	token_id	integer,
	kind		text NOT NULL CHECK (kind IN ('image', 'deb', 'tree')),
	state		text NOT NULL DEFAULT 'queued'
			CHECK (state IN ('queued', 'done', 'failed')),
	tree		text,
	boards		text[] NOT NULL DEFAULT '{}',
	testcases	text[] NOT NULL DEFAULT '{}',
	baseline	text,				-- kernel definition or PACKAGE=VERSION
	kernel		text,				-- the definition the jobs boot
	runs		integer NOT NULL DEFAULT 5 CHECK (runs > 0),	-- per side
	duration_s	integer CHECK (duration_s > 0),	-- NULL: the testcases'
	verdict_ids	bigint[] NOT NULL DEFAULT '{}',	-- one per board, testcase
	result		text,				-- one line: why it ended so
	created_at	timestamptz NOT NULL DEFAULT now(),
	finished_at	timestamptz
);
ALTER TABLE jobs ADD CONSTRAINT jobs_submission_fk
	FOREIGN KEY (submission_id) REFERENCES submissions;
CREATE INDEX jobs_submission ON jobs (submission_id)
	WHERE submission_id IS NOT NULL;

-- One row per thing told (a regression of a series, a finished
-- submission); later messages about it reply to the first.
CREATE TABLE notifications (
	subject		text PRIMARY KEY,	-- 'regression:B:T:BASE:CAND', 'submission:ID'
	message_id	text NOT NULL,		-- the first message's Message-ID
	last_message_id	text NOT NULL,
	last_state	text NOT NULL,		-- what was told last
	messages	integer NOT NULL DEFAULT 1,
	created_at	timestamptz NOT NULL DEFAULT now(),
	updated_at	timestamptz NOT NULL DEFAULT now()
);

