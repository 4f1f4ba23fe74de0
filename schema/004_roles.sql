-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 4: who may do what, and what belongs to the lab.
--
-- Every token (board, developer, maintainer, admin) lives in one table,
-- shown once when made and stored as sha256() of its text.  The boards'
-- upload tokens move here unchanged, so a board keeps sending what it
-- sent.  A revoked token stays as a row (who had it, until when) and no
-- longer authenticates.
CREATE TABLE tokens (
	id		serial PRIMARY KEY,
	role		text NOT NULL
			CHECK (role IN ('board', 'developer', 'maintainer',
					'admin')),
	name		text NOT NULL
			CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9._@-]*$'
			       AND length(name) <= 64),
	sha256		bytea NOT NULL UNIQUE,		-- the token, hashed
	board_id	integer REFERENCES boards ON DELETE CASCADE,
	created_at	timestamptz NOT NULL DEFAULT now(),
	last_used_at	timestamptz,
	revoked_at	timestamptz,
	-- A board token is one board's; no other token is a board's.
	CHECK ((role = 'board') = (board_id IS NOT NULL))
);
CREATE INDEX tokens_board ON tokens (board_id) WHERE board_id IS NOT NULL;

INSERT INTO tokens (role, name, sha256, board_id, created_at)
	SELECT 'board', name, token_sha256, id, created_at FROM boards
	WHERE token_sha256 IS NOT NULL;

ALTER TABLE boards DROP COLUMN token_sha256;

-- A testcase's definition and verdict parameters are the lab's: taken
-- from its testcases/NAME.yaml (lab = true) or set by a maintainer, never
-- from an uploaded manifest.  Rows made before this version hold what
-- some board's manifest said; they are not the lab's until a lab file or
-- a maintainer says so.
ALTER TABLE testcases
	ADD COLUMN lab		boolean NOT NULL DEFAULT false,
	ADD COLUMN updated_at	timestamptz NOT NULL DEFAULT now(),
	ADD COLUMN updated_by	text;			-- 'lab file' or a token

-- What the lab noticed about a run: its testcase disagreeing with the
-- lab's definition ({"testcase_mismatch": ["measurement.interval_us"]}),
-- or a testcase the lab does not define ({"testcase_not_in_lab": true}).
-- The manifest keeps what the board ran.
ALTER TABLE runs ADD COLUMN flags jsonb NOT NULL DEFAULT '{}';
