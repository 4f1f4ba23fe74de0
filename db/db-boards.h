/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_BOARDS_H
#define RTLAB_DB_BOARDS_H

/*
 * Boards and their upload tokens.  A board's upload token is a board
 * token of the tokens table (db-tokens.h) named after the board: 32
 * random bytes in hex (64 characters), shown once when made; the database
 * keeps only its SHA-256, so a stolen database does not hand out upload
 * rights.
 */

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include <libpq-fe.h>
#include "error.h"

#define BOARD_TOKEN_LEN 64

struct db_board {
	int id;
	char *name;
	char *kind;	  /* local, qemu, ssh, lava */
	char *definition; /* JSON text */
	bool has_token;
	char *created_at; /* ISO 8601, UTC */
};

/** db_board_kind_valid() - whether @kind is local, qemu, ssh or lava. */
bool db_board_kind_valid(const char *kind);

/**
 * db_board_create() - register board @name of @kind with a fresh upload
 * token.  @definition_json: the board definition as JSON text (NULL: {}).
 * @token_out: gets the token (64 hex digits and a NUL); it is not stored.
 * Return: the new board's id (> 0); -EEXIST when @name is taken, -EINVAL
 * for a bad name, kind or definition, -EIO; @err says which.
 */
int db_board_create(PGconn *conn, const char *name, const char *kind,
		    const char *definition_json, char token_out[65],
		    struct rtlab_err *err) __must_check;

/**
 * db_board_rotate_token() - give board @name a fresh token; its other
 * live board tokens are revoked at once.  Return: 0, -ENOENT for an unknown board, -EIO.
 */
int db_board_rotate_token(PGconn *conn, const char *name, char token_out[65],
			  struct rtlab_err *err) __must_check;

/**
 * db_board_lookup() - the id of board @name.
 * Return: 0, -ENOENT (with @err naming the board), -EIO.
 */
int db_board_lookup(PGconn *conn, const char *name, int *board_id,
		    struct rtlab_err *err) __must_check;

/**
 * db_board_list() - every board, by name.
 * Return: 0 with *@boards (caller frees with db_board_list_free()) and
 * *@count set; -EIO, -ENOMEM.
 */
int db_board_list(PGconn *conn, struct db_board **boards, size_t *count,
		  struct rtlab_err *err) __must_check;

/**
 * db_board_farm() - every board as the farm sees it, by name: a JSON array
 * of {"name", "kind", "has_token", "state" (idle, busy, offline or
 * unhealthy: a board in service is busy while a worker holds one of its
 * jobs), "state_reason", "job" (the running job: {"id", "kind",
 * "testcase", "kernel", "phase", "worker"}, or null), "queued" (its
 * queued jobs), "health" ({"result": "pass"|"fail", "reason", "at",
 * "job_id"}, or null before the first health job)}.
 * Return: 0 with *@out (caller json_decref()s); -EIO, -ENOMEM.
 */
int db_board_farm(PGconn *conn, json_t **out,
		  struct rtlab_err *err) __must_check;

/** db_board_list_free() - free what db_board_list() returned; NULL is fine. */
void db_board_list_free(struct db_board *boards, size_t count);

#endif
