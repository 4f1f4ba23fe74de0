// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Kernel trees in PostgreSQL: the kernels each tree was seen to hold.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "db-trees.h"
#include "db.h"

int db_tree_record(PGconn *conn, const char *tree, const char *const *packages,
		   const char *const *versions, size_t n, unsigned int *nnew,
		   struct rtlab_err *err)
{
	char pos[24];
	const char *p[4] = { tree, NULL, NULL, pos };
	int64_t inserted;
	size_t i;
	int ret;

	*nnew = 0;
	ret = db_begin(conn, err);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		p[1] = packages[i];
		p[2] = versions[i];
		snprintf(pos, sizeof(pos), "%zu", i);
		/* xmax is 0 for a row this statement inserted */
		ret = db_query_id(conn,
				  "INSERT INTO tree_kernels (tree, package, "
				  "version, position) VALUES ($1, $2, $3, "
				  "$4::integer) ON CONFLICT (tree, package, "
				  "version) DO UPDATE SET position = "
				  "EXCLUDED.position, seen_at = now() "
				  "RETURNING (xmax = 0)::integer",
				  4, p, &inserted, err, "recording a tree");
		if (ret) {
			db_rollback(conn);
			return ret;
		}
		*nnew += inserted == 1;
	}
	return db_commit(conn, err);
}

int db_tree_kernels(PGconn *conn, const char *tree, json_t **out,
		    struct rtlab_err *err)
{
	const char *p[1] = { tree };
	int ret;

	ret = db_query_json(
		conn,
		"SELECT COALESCE(json_agg(json_build_object('package', "
		"package, 'version', version, 'position', position, "
		"'discovered_at', discovered_at, 'seen_at', seen_at) "
		"ORDER BY position), '[]') FROM tree_kernels WHERE tree = $1",
		1, p, out, err, "reading a tree");
	return ret;
}
