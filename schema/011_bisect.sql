-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 11: bisections of a latency regression over an
-- ordered range of kernels (docs/bisect.md), their steps with the
-- verdicts that decided them; a job names the bisection step it measures.
-- (Job priorities are schema 14's.)

CREATE TABLE bisections (
	id		bigserial PRIMARY KEY,
	board_id	integer NOT NULL REFERENCES boards(id),
	testcase	text NOT NULL,
	testcase_file	text NOT NULL,
	duration_s	integer CHECK (duration_s > 0),
	series		text NOT NULL,		-- how the range was given
	kernels		text[] NOT NULL CHECK (cardinality(kernels) >= 2),
	-- a lab self-check: kernels from this position on run plant_file
	plant_from	integer,
	plant_file	text,
	state		text NOT NULL DEFAULT 'ends'
			CHECK (state IN ('ends', 'stepping', 'done', 'failed',
					 'reset')),
	step		integer,		-- position being measured
	lo		integer,		-- last good position
	hi		integer,		-- first bad position
	culprit		integer,		-- position, once isolated
	result		text,			-- why it ended, for people
	ends_verdict	jsonb,			-- bad end against good end
	regression_id	bigint,			-- the verdict it bisects
	created_at	timestamptz NOT NULL DEFAULT now(),
	finished_at	timestamptz
);

CREATE TABLE bisect_steps (
	bisect_id	bigint NOT NULL REFERENCES bisections(id)
			ON DELETE CASCADE,
	position	integer NOT NULL,
	kernel		text NOT NULL,
	mark		text NOT NULL CHECK (mark IN ('good', 'bad', 'skip')),
	decision	text NOT NULL,	-- good, bad, skip, between, failed, unqueueable
	look		integer NOT NULL,
	vs_good		jsonb,		-- the step against the good end
	vs_bad		jsonb,		-- the step against the bad end
	decided_at	timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (bisect_id, position)
);

ALTER TABLE jobs
	ADD COLUMN bisect_id	bigint REFERENCES bisections(id)
				ON DELETE SET NULL,
	ADD COLUMN bisect_pos	integer;
CREATE INDEX jobs_bisect ON jobs (bisect_id, bisect_pos)
	WHERE bisect_id IS NOT NULL;
