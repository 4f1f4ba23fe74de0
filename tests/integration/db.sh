#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The embedded PostgreSQL end to end: start (initdb the first time), status,
# migrations (idempotent, concurrent, a broken one rolled back), boards and
# their tokens, stop and start again with the data kept, TCP on loopback,
# and the errors a user meets (RTLAB_DB pointing nowhere, a state directory
# the postgres user cannot reach).
. "$(dirname "$0")/../lib.sh"

out=$(mktemp -d /tmp/rtlab-dbtest.XXXXXX) || exit 1
on_exit "rm -rf '$out'"

# -- start, status ----------------------------------------------------------
if start_db; then ok "db start on a fresh state dir"; else not_ok "db start on a fresh state dir"; fi
check "start output names the socket" grep -q "started: socket in $RTLAB_STATE_DIR/pg/run" "$RTLAB_STATE_DIR/start.log"
# The schema is every numbered migration shipped in schema/.
nmig=$(ls "$TOP"/schema/[0-9][0-9][0-9]_*.sql | wc -l)
lastmig=$(ls "$TOP"/schema/[0-9][0-9][0-9]_*.sql | tail -n 1 | sed 's,.*/0*\([0-9]*\)_.*,\1,')
check "start applied the schema" grep -Eq "applied $nmig migrations? " "$RTLAB_STATE_DIR/start.log"
if [ "$(id -u)" = 0 ]; then
	check "as root the cluster belongs to postgres" \
		test "$(stat -c %U "$RTLAB_STATE_DIR/pg/data")" = postgres
	check "postmaster runs as postgres" \
		test "$(ps -o user= -p "$(head -n 1 "$RTLAB_STATE_DIR/pg/data/postmaster.pid")")" = postgres
fi

"$RTLAB" db status >"$out/status" 2>&1
check "db status exits 0 while running" test $? = 0
check "db status: running" grep -q '^server: *running (pid' "$out/status"
check "db status: schema version $lastmig" grep -q "^schema: *version $lastmig\$" "$out/status"
check "db status: state dir line" grep -q "^state dir: *$RTLAB_STATE_DIR\$" "$out/status"
check "db status: counts" grep -q '^boards: *0' "$out/status"

"$RTLAB" db start >"$out/start2" 2>&1
check "db start again is fine" test $? = 0
check "db start again says already running" grep -q 'already running' "$out/start2"

"$RTLAB" db conninfo >"$out/ci" 2>&1
check "db conninfo names the socket dir" \
	grep -q "host=$RTLAB_STATE_DIR/pg/run .*dbname=rtlab" "$out/ci"
check "db psql runs a query" test "$("$RTLAB" db psql -tAc 'SELECT 6*7' 2>&1)" = 42

# -- migrations ---------------------------------------------------------------
"$RTLAB" db migrate >"$out/mig" 2>&1
check "migrate again exits 0" test $? = 0
check "migrate again applies 0" grep -q 'applied 0 migrations' "$out/mig"

# A second migration, applied by two migrators at once: exactly one applies.
mkdir -p "$out/data/schema"
cp "$TOP"/schema/*.sql "$out/data/schema/"
cat >"$out/data/schema/900_test.sql" <<'SQL'
CREATE TABLE test_migration (id integer PRIMARY KEY);
SELECT pg_sleep(0.5);
INSERT INTO test_migration VALUES (1);
SQL
RTLAB_DATADIR=$out/data "$RTLAB" db migrate >"$out/m1" 2>&1 &
p1=$!
RTLAB_DATADIR=$out/data "$RTLAB" db migrate >"$out/m2" 2>&1 &
p2=$!
wait $p1; r1=$?
wait $p2; r2=$?
check "two concurrent migrators both succeed" test "$r1$r2" = 00
check "exactly one of them applied the migration" \
	test "$(cat "$out/m1" "$out/m2" | grep -c 'applied 1 migration')" = 1
check "the migration ran once" \
	test "$("$RTLAB" db psql -tAc 'SELECT count(*) FROM test_migration')" = 1
check "schema_version records it by name" \
	test "$("$RTLAB" db psql -tAc "SELECT name FROM schema_version WHERE version = 900")" = test

# A broken migration: nothing of it stays, the error names file and line.
cat >"$out/data/schema/901_broken.sql" <<'SQL'
CREATE TABLE half_done (id integer);
SELEC 1;
SQL
RTLAB_DATADIR=$out/data "$RTLAB" db migrate >"$out/m3" 2>&1
check "a broken migration fails" test $? = 1
check "its error names the file and line" grep -q '901_broken.sql line 2: .*syntax error' "$out/m3"
check "its first statement was rolled back" \
	test "$("$RTLAB" db psql -tAc "SELECT count(*) FROM pg_tables WHERE tablename = 'half_done'")" = 0
check "its version is not recorded" \
	test "$("$RTLAB" db psql -tAc 'SELECT max(version) FROM schema_version')" = 900
echo "SELECT 1;" >"$out/data/schema/901_other.sql"
RTLAB_DATADIR=$out/data "$RTLAB" db migrate >"$out/m4" 2>&1
check "two migrations with one number are refused" grep -q 'same version 901' "$out/m4"

# -- boards -------------------------------------------------------------------
"$RTLAB" board add rpi4 --kind ssh >"$out/add" 2>&1
check "board add exits 0" test $? = 0
tok1=$(grep -E '^[0-9a-f]{64}$' "$out/add")
check "board add prints a 64-hex-digit token" test ${#tok1} = 64
check "board add says to keep it" grep -q 'keep it' "$out/add"
"$RTLAB" board add rpi4 >"$out/dup" 2>&1
check "duplicate board name exits 1" test $? = 1
check "duplicate board name: clear error" grep -q "board 'rpi4' already exists" "$out/dup"
"$RTLAB" board add qemu0 --kind banana >"$out/kind" 2>&1
check "bad kind is a usage error" test $? = 2
"$RTLAB" board add 'no/slash' >"$out/name" 2>&1
check "bad board name is refused" grep -q "board name 'no/slash'" "$out/name"
tokq=$("$RTLAB" board add qemu0 --kind qemu --quiet)
check "board add --quiet prints only the token" \
	sh -c "printf '%s\n' '$tokq' | grep -Eqx '[0-9a-f]{64}'"
"$RTLAB" board list >"$out/list" 2>&1
check "board list shows both" test "$(grep -cE '^(rpi4|qemu0) ' "$out/list")" = 2
check "board list shows the kind" grep -Eq '^rpi4 +ssh ' "$out/list"
check "only the token's hash is stored" \
	test "$("$RTLAB" db psql -tAc "SELECT count(*) FROM tokens WHERE position(convert_to('$tok1', 'UTF8') IN sha256) > 0 OR encode(sha256, 'hex') = '$tok1'")" = 0
check "the stored hash is the token's sha256" \
	test "$("$RTLAB" db psql -tAc "SELECT b.name FROM tokens t JOIN boards b ON b.id = t.board_id WHERE t.revoked_at IS NULL AND t.sha256 = sha256(convert_to('$tok1', 'UTF8'))")" = rpi4
tok2=$("$RTLAB" board token rpi4 --quiet)
check "board token prints a 64-hex-digit token" \
	sh -c "printf '%s\n' '$tok2' | grep -Eqx '[0-9a-f]{64}'"
check "board token makes a different token" test "$tok2" != "$tok1"
check "the new token matches the board" \
	test "$("$RTLAB" db psql -tAc "SELECT b.name FROM tokens t JOIN boards b ON b.id = t.board_id WHERE t.revoked_at IS NULL AND t.sha256 = sha256(convert_to('$tok2', 'UTF8'))")" = rpi4
check "the old token no longer matches" \
	test "$("$RTLAB" db psql -tAc "SELECT count(*) FROM tokens WHERE revoked_at IS NULL AND sha256 = sha256(convert_to('$tok1', 'UTF8'))")" = 0
"$RTLAB" board token nosuch >"$out/nosuch" 2>&1
check "rotating an unknown board fails clearly" grep -q "no board named 'nosuch'" "$out/nosuch"

# -- stop, start, data kept -----------------------------------------------------
"$RTLAB" db stop >"$out/stop" 2>&1
check "db stop exits 0" test $? = 0
check "db stop says stopped" grep -q 'stopped' "$out/stop"
"$RTLAB" db status >"$out/status2" 2>&1
check "db status while stopped exits 1" test $? = 1
check "db status says not running" grep -q '^server: *not running' "$out/status2"
"$RTLAB" board list >"$out/down" 2>&1
check "a command on a stopped database fails" test $? = 1
check "... and says how to start it" grep -q "rtlab db start" "$out/down"
"$RTLAB" db stop >"$out/stop2" 2>&1
check "db stop twice is fine" test $? = 0
check "... saying it was not running" grep -q 'not running' "$out/stop2"
"$RTLAB" db start >"$out/restart" 2>&1
check "db start after stop" test $? = 0
check "no initdb the second time: schema already there" grep -q 'applied 0 migrations' "$out/restart"
"$RTLAB" board list >"$out/list2" 2>&1
check "boards survived the restart" grep -q '^rpi4 ' "$out/list2"

# -- TCP on loopback -------------------------------------------------------------
port=$((20000 + $$ % 20000))
"$RTLAB" db stop >/dev/null 2>&1
"$RTLAB" db start --tcp $port >"$out/tcp" 2>&1
check "db start --tcp PORT" test $? = 0
"$RTLAB" db conninfo >"$out/ci2" 2>&1
check "conninfo carries the port" grep -q "port=$port " "$out/ci2"
check "psql reaches it over 127.0.0.1" \
	test "$(psql -h 127.0.0.1 -p $port -U postgres -d rtlab -tAc 'SELECT count(*) FROM boards' 2>&1)" = 2
"$RTLAB" db start --tcp 0 >/dev/null 2>&1
check "db start --tcp 0 is a usage error" test $? = 2

# -- RTLAB_DB elsewhere -------------------------------------------------------------
RTLAB_DB="host=$out/nowhere dbname=rtlab connect_timeout=3" "$RTLAB" board list >"$out/bad" 2>&1
check "bad RTLAB_DB fails" test $? = 1
check "bad RTLAB_DB: the error names RTLAB_DB and where" \
	grep -q "RTLAB_DB (.*host=$out/nowhere.*)" "$out/bad"
RTLAB_DB="host=$out/nowhere" "$RTLAB" db start >"$out/bad2" 2>&1
check "db start refuses with RTLAB_DB set" test $? = 1
check "... politely, saying why" grep -q 'does not manage' "$out/bad2"
RTLAB_DB="$("$RTLAB" db conninfo)" "$RTLAB" db status >"$out/ext" 2>&1
check "db status works through RTLAB_DB" grep -q '^schema: *version 900' "$out/ext"

# -- the configuration file -----------------------------------------------------------
printf 'max_upload_mb = lots\n' >"$out/bad.conf"
RTLAB_CONFIG=$out/bad.conf "$RTLAB" board list >"$out/conf" 2>&1
check "a bad configuration file is named with its line" \
	grep -q "bad.conf line 1: max_upload_mb" "$out/conf"

# -- a state dir postgres cannot reach (only meaningful as root) -----------------------
if [ "$(id -u)" = 0 ]; then
	priv=$(mktemp -d /tmp/rtlab-priv.XXXXXX)
	on_exit "rm -rf '$priv'"
	chmod 700 "$priv"
	RTLAB_STATE_DIR=$priv/state "$RTLAB" db start >"$out/priv" 2>&1
	check "unreachable state dir fails" test $? = 1
	check "... naming the directory in the way" \
		grep -q "cannot reach .*$priv (mode 0700" "$out/priv"
fi

# -- two starts at once on a fresh state dir: one initdb, both succeed ------------
race=$(mktemp -d /tmp/rtlab-race.XXXXXX)
chmod 755 "$race"
on_exit "rm -rf '$race'"
on_exit "RTLAB_STATE_DIR='$race' '$RTLAB' db stop >/dev/null 2>&1"
RTLAB_STATE_DIR=$race "$RTLAB" db start >"$out/race1" 2>&1 &
p1=$!
RTLAB_STATE_DIR=$race "$RTLAB" db start >"$out/race2" 2>&1
r2=$?
wait $p1
r1=$?
check "two concurrent db starts both succeed" test "$r1$r2" = 00
check "... one started it, the other found it running" \
	test "$(cat "$out/race1" "$out/race2" | grep -c 'already running')" = 1
