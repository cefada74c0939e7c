/* state-dir.h: the daemon's state directory (0700): the database, runs/<run-id>/, and the API
 * bearer token (0600, 32 random bytes as 64 hex characters, made at first start). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define TOKEN_HEX_LEN 64

/* Create the directory (and runs/) if missing and prove it writable. With others_traverse
 * (the run user, when it is not the daemon's, works in runs/<id>/) the state dir and runs/ are 0711,
 * traversable without being listable; else 0700. */
int state_dir_prepare(const char *dir, bool others_traverse);
/* The database (path, and its -wal and -shm beside it) made or kept 0600 before SQLite opens it:
 * SQLite gives its journal files the database's mode, and the run user must not read them. */
int state_dir_private(const char *db_path);
/* Read the token, creating it first if there is none. */
int state_dir_token(const char *dir, char token[TOKEN_HEX_LEN + 1]);
/* The token this daemon sends to peers (--peer-token-file): a regular file (no FIFO or device
 * to hang on, no symlink), at most 4 KiB, whose first line is a token of TOKEN_HEX_LEN hex
 * characters, as every peer's own state-dir token is. Errors name the file, never its content;
 * a file others can read is started with, and warned about. */
int state_dir_peer_token(const char *path, char token[TOKEN_HEX_LEN + 1]);
