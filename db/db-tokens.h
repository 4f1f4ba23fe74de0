/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef RTLAB_DB_TOKENS_H
#define RTLAB_DB_TOKENS_H

/*
 * Tokens of every role (lib/role.h) in the tokens table.  A token is 32
 * random bytes in hex (64 characters), shown once when made; only its
 * SHA-256 is stored, so a stolen database hands out no rights.  A board
 * token belongs to one board; revoking keeps the row.
 */

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>
#include <libpq-fe.h>

#include "error.h"
#include "role.h"

#define TOKEN_LEN 64

/* Who a token is, as db_token_auth() finds it. */
struct db_token_who {
	int id;
	enum role role;
	char *name;   /* malloc'd */
	int board_id; /* board tokens; -1 otherwise */
	char *board;  /* the board's name, malloc'd; NULL: not a board's */
};

/** db_token_who_cleanup() - free @who's strings; safe twice. */
void db_token_who_cleanup(struct db_token_who *who);

/**
 * db_token_make() - 64 fresh random hex digits and a NUL into @out.
 * Return: 0, or a negative errno (getrandom failed) with @err set.
 */
int db_token_make(char out[TOKEN_LEN + 1], struct rtlab_err *err) __must_check;

/**
 * db_token_create() - make a token of @role called @name and store its
 * hash.  @board: for ROLE_BOARD the board it belongs to (must be
 * registered; NULL: the board called @name); ignored otherwise.
 * @token_out: gets the token; it is not stored.  @id: the token's id.
 * Return: 0; -EINVAL for a bad name or a board given to another role;
 * -ENOENT for an unknown board; -EIO.  @err says which.
 */
int db_token_create(PGconn *conn, enum role role, const char *name,
		    const char *board, char token_out[TOKEN_LEN + 1], int *id,
		    struct rtlab_err *err) __must_check;

/**
 * db_token_auth() - whose is @token?  Notes when it was last used (at
 * most once a minute, so reads do not write on every request).
 * Return: 0 with @who filled (caller releases with
 * db_token_who_cleanup()); -EACCES with @err saying why for an empty,
 * malformed, unknown or revoked token; -EIO, -ENOMEM.
 */
int db_token_auth(PGconn *conn, const char *token, struct db_token_who *who,
		  struct rtlab_err *err) __must_check;

/**
 * db_token_list() - every token, live first then revoked, by id: a JSON
 * array of {id, role, name, board, created_at, last_used_at, revoked_at}
 * (never the hash).  Return: 0 with *@out (caller json_decref()s), -EIO.
 */
int db_token_list(PGconn *conn, json_t **out,
		  struct rtlab_err *err) __must_check;

/**
 * db_token_revoke() - revoke the live token with id @ref (all digits), or
 * every live token called @ref.  @count: how many were revoked.
 * Return: 0; -ENOENT with @err naming @ref when no live token matched;
 * -EIO.
 */
int db_token_revoke(PGconn *conn, const char *ref, unsigned int *count,
		    struct rtlab_err *err) __must_check;

/**
 * db_token_name_valid() - the rule of tokens.name: 1 to 64 letters,
 * digits, '.', '_', '@' or '-', starting with a letter or digit.
 */
bool db_token_name_valid(const char *name);

#endif
