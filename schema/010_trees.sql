-- SPDX-License-Identifier: GPL-2.0-or-later
--
-- rtlab schema, version 10: the kernels each tree (kernels/trees/) was
-- seen to hold, in the tree's order, so that the farm can tell a new
-- kernel from one it knows.  A kernel of a tree is a package at a
-- version; position is its place in the tree's order at the latest
-- discovery (0 the oldest).

CREATE TABLE tree_kernels (
	tree		text NOT NULL,
	package		text NOT NULL,
	version		text NOT NULL,
	position	integer NOT NULL CHECK (position >= 0),
	discovered_at	timestamptz NOT NULL DEFAULT now(),
	seen_at		timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (tree, package, version)
);
CREATE INDEX tree_kernels_order ON tree_kernels (tree, position);
