-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 1: everything the lab stores.  Applied by
-- `rtlab db migrate` inside one transaction; the version is recorded in
-- schema_version by the migration runner, not here.

-- A board's upload token is shown once; only sha256() of its text is kept,
-- and it must find exactly one board.
CREATE TABLE boards (
	id		serial PRIMARY KEY,
	name		text NOT NULL UNIQUE
			CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._-]*$'
			       AND length(name) <= 64),
	kind		text NOT NULL DEFAULT 'local'
			CHECK (kind IN ('local', 'qemu', 'ssh', 'lava')),
	token_sha256	bytea UNIQUE,			-- upload token, hashed
	definition	jsonb NOT NULL DEFAULT '{}',
	calibration	jsonb,				-- rtlab calibrate results
	created_at	timestamptz NOT NULL DEFAULT now()
);

-- A kernel is identified by what it reports about itself: release,
-- version string and the hash of its config.
CREATE TABLE kernels (
	id		serial PRIMARY KEY,
	name		text,				-- definition name, e.g. debian-rt
	tree		text NOT NULL DEFAULT '',
	release		text NOT NULL,			-- uname -r
	version		text NOT NULL DEFAULT '',	-- uname -v
	commit		text,
	config_sha256	text NOT NULL DEFAULT '',
	realtime	boolean,
	source		jsonb NOT NULL DEFAULT '{}',	-- where the image came from
	created_at	timestamptz NOT NULL DEFAULT now(),
	UNIQUE (release, version, config_sha256)
);

CREATE TABLE testcases (
	id		serial PRIMARY KEY,
	name		text NOT NULL UNIQUE,
	definition	jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE jobs (
	id		bigserial PRIMARY KEY,
	kernel_id	integer NOT NULL REFERENCES kernels,
	board_id	integer NOT NULL REFERENCES boards,
	testcase_id	integer NOT NULL REFERENCES testcases,
	state		text NOT NULL DEFAULT 'queued'
			CHECK (state IN ('queued', 'running', 'done', 'failed')),
	attempts	integer NOT NULL DEFAULT 0,
	worker		text,
	lease_until	timestamptz,
	error		text,
	params		jsonb NOT NULL DEFAULT '{}',
	created_at	timestamptz NOT NULL DEFAULT now(),
	started_at	timestamptz,
	finished_at	timestamptz
);
CREATE INDEX jobs_queued ON jobs (id) WHERE state IN ('queued', 'running');

CREATE TABLE runs (
	id		bigserial PRIMARY KEY,
	uuid		uuid NOT NULL UNIQUE,
	board_id	integer NOT NULL REFERENCES boards,
	kernel_id	integer NOT NULL REFERENCES kernels,
	testcase_id	integer NOT NULL REFERENCES testcases,
	job_id		bigint REFERENCES jobs,
	status		text NOT NULL CHECK (status IN
			('complete', 'agent_error', 'boot_failed', 'panic', 'hang')),
	error		text,
	clock		text NOT NULL DEFAULT 'host',	-- host, icount:3, tcg, kvm
	environment	jsonb NOT NULL DEFAULT '{}',
	commands	jsonb NOT NULL DEFAULT '[]',
	manifest	jsonb NOT NULL,
	started_at	timestamptz,
	finished_at	timestamptz,
	created_at	timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX runs_series ON runs (board_id, testcase_id, kernel_id);
-- Foreign keys PostgreSQL does not index by itself: "runs of this kernel"
-- (comparisons across boards) and "runs of this job".
CREATE INDEX runs_kernel ON runs (kernel_id);
CREATE INDEX runs_job ON runs (job_id) WHERE job_id IS NOT NULL;

-- One histogram per measuring thread (one per CPU with cyclictest -t),
-- 1 µs buckets stored compactly: the non-empty buckets' latencies and their
-- counts as two parallel arrays.  Summary figures are derived and kept for
-- queries; quantiles that fall among the overflows are NULL.
CREATE TABLE histograms (
	run_id		bigint NOT NULL REFERENCES runs ON DELETE CASCADE,
	thread		integer NOT NULL,
	cpu		integer NOT NULL,
	range_us	integer NOT NULL,		-- buckets 0 .. range_us-1
	bucket_us	integer[] NOT NULL,
	counts		bigint[] NOT NULL,
	overflows	bigint NOT NULL,
	samples		bigint NOT NULL,
	min_us		integer,
	avg_us		double precision,
	max_us		integer,
	p50_us		integer,
	p99_us		integer,
	p999_us		integer,
	p9999_us	integer,
	PRIMARY KEY (run_id, thread),
	CHECK (cardinality(bucket_us) = cardinality(counts)),
	CHECK (range_us > 0 AND overflows >= 0 AND overflows <= samples)
);

CREATE TABLE artifacts (
	run_id		bigint NOT NULL REFERENCES runs ON DELETE CASCADE,
	name		text NOT NULL,
	content_type	text NOT NULL DEFAULT 'application/octet-stream',
	size		bigint NOT NULL,
	sha256		text NOT NULL,
	data		bytea NOT NULL,
	PRIMARY KEY (run_id, name)
);

-- A series is (board, testcase, tree); its baseline is pinned here or, by
-- default, the previous kernel of the tree that has runs.
CREATE TABLE baselines (
	board_id	integer NOT NULL REFERENCES boards,
	testcase_id	integer NOT NULL REFERENCES testcases,
	tree		text NOT NULL,
	kernel_id	integer NOT NULL REFERENCES kernels,
	set_at		timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (board_id, testcase_id, tree)
);

CREATE TABLE verdicts (
	id		bigserial PRIMARY KEY,
	board_id	integer NOT NULL REFERENCES boards,
	testcase_id	integer NOT NULL REFERENCES testcases,
	baseline_kernel_id  integer NOT NULL REFERENCES kernels,
	candidate_kernel_id integer NOT NULL REFERENCES kernels,
	verdict		text NOT NULL CHECK (verdict IN
			('REGRESSION', 'IMPROVEMENT', 'NO_CHANGE', 'INCONCLUSIVE')),
	details		jsonb NOT NULL DEFAULT '{}',	-- per-metric figures and tests
	baseline_runs	bigint[] NOT NULL DEFAULT '{}',
	candidate_runs	bigint[] NOT NULL DEFAULT '{}',
	created_at	timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX verdicts_pair ON verdicts (board_id, testcase_id, candidate_kernel_id);

CREATE TABLE reports (
	id		bigserial PRIMARY KEY,
	verdict_id	bigint NOT NULL REFERENCES verdicts,
	bug_url		text,
	bug_id		integer,
	files		jsonb NOT NULL DEFAULT '{}',
	created_at	timestamptz NOT NULL DEFAULT now(),
	filed_at	timestamptz
);
CREATE UNIQUE INDEX reports_filed_once ON reports (verdict_id) WHERE bug_id IS NOT NULL;
