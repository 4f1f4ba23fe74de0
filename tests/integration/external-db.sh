#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# rtlab against a PostgreSQL set up as a DBA would (docs/database.md,
# "An external PostgreSQL"): a second throwaway cluster that is not rtlab's
# embedded one, reached over TCP on 127.0.0.1 with scram-sha-256
# passwords; the roles and grants are the SQL block of the docs itself.
# The owner role migrates; the server role serves and stores an upload but
# cannot migrate; a role without rights is refused at server start with a
# message naming what it lacks; a schema behind the binary is refused.
. "$(dirname "$0")/../lib.sh"

work=$(mktemp -d /tmp/rtlab-extdb.XXXXXX) || exit 1
chmod 755 "$work"
on_exit "[ -n \"\$KEEP\" ] || rm -rf '$work'"
pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)

as_pg() {
	if [ "$(id -u)" = 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

# -- the DBA's cluster ---------------------------------------------------------
data=$work/pgdata
mkdir -p "$data" && chown postgres "$data" 2>/dev/null
printf 'superpw\n' >"$work/pwfile" && chown postgres "$work/pwfile" 2>/dev/null
if ! as_pg "$pgbin/initdb" -D "$data" -U postgres --pwfile="$work/pwfile" \
	--auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C \
	>"$work/initdb.log" 2>&1; then
	not_ok "a second PostgreSQL cluster is created"
	cat "$work/initdb.log"
	exit 1
fi
ok "a second PostgreSQL cluster is created"
# A free loopback port: try until the server takes one.
port=""
for try in 1 2 3 4 5 6 7 8; do
	p=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 30000))
	if as_pg "$pgbin/pg_ctl" -D "$data" -l "$data/pg.log" -w -t 120 \
		-o "-c listen_addresses=127.0.0.1 -c port=$p -c unix_socket_directories=$data" \
		start >"$work/pgctl.log" 2>&1; then
		port=$p
		break
	fi
done
on_exit "as_pg '$pgbin/pg_ctl' -D '$data' -m fast stop >/dev/null 2>&1"
check "it listens on 127.0.0.1:$port with passwords" test -n "$port"
[ -n "$port" ] || { cat "$data/pg.log" "$work/pgctl.log"; exit 1; }

# The roles and grants exactly as docs/database.md gives them.
sed -n '/<!-- roles:begin -->/,/<!-- roles:end -->/p' "$TOP/docs/database.md" |
	sed '/^<!--/d; /^```/d' >"$work/roles.sql"
check "docs/database.md holds the roles SQL" grep -q 'CREATE ROLE rtlab_server' "$work/roles.sql"
if as_pg "$pgbin/../bin/psql" -X -q -v ON_ERROR_STOP=1 -h "$data" -p "$port" \
	-U postgres -d postgres -v owner_pw=ownerpw -v server_pw=serverpw \
	-f "$work/roles.sql" >"$work/roles.log" 2>&1; then
	ok "the documented roles SQL runs"
else
	not_ok "the documented roles SQL runs"
	cat "$work/roles.log"
fi
# A role that may connect and nothing more.
as_pg psql -X -q -h "$data" -p "$port" -U postgres -d postgres \
	-c "CREATE ROLE rtlab_nobody LOGIN PASSWORD 'nobodypw'" \
	-c "GRANT CONNECT ON DATABASE rtlab TO rtlab_nobody" >/dev/null 2>&1

tcp="host=127.0.0.1 port=$port dbname=rtlab"
OWNER="$tcp user=rtlab_owner password=ownerpw"
SERVER="$tcp user=rtlab_server password=serverpw"
NOBODY="$tcp user=rtlab_nobody password=nobodypw"
# Not rtlab's embedded cluster: a state dir with nothing in it.
export RTLAB_STATE_DIR="$work/state"
mkdir -p "$RTLAB_STATE_DIR"

# -- migrations: the owner may, the server role may not ------------------------
st=0
RTLAB_DB=$SERVER "$RTLAB" db migrate >"$work/mig-server.log" 2>&1 || st=$?
check "the server role cannot migrate" test "$st" != 0
check "and is told migrations need the owner role" \
	grep -q "need the role that owns the database" "$work/mig-server.log"
check "the password is not printed" sh -c "! grep -q serverpw '$work/mig-server.log'"
n=$(RTLAB_DB=$OWNER "$RTLAB" db psql -tA -c "SELECT count(*) FROM pg_tables WHERE schemaname='public'" 2>/dev/null)
check "nothing was half-created by the refused migration (tables: $n)" test "$n" = 0

# a server started before the migration is refused, naming what to run
st=0
RTLAB_DB=$SERVER "$RTLAB" server --listen 127.0.0.1:0 >"$work/early.out" 2>"$work/early.log" || st=$?
check "a server on an unmigrated database refuses to start" test "$st" != 0
check "saying to run rtlab db migrate" grep -q "rtlab db migrate" "$work/early.log"

if RTLAB_DB=$OWNER "$RTLAB" db migrate >"$work/mig-owner.log" 2>&1; then
	ok "the owner role migrates over TCP with a password"
else
	not_ok "the owner role migrates over TCP with a password"
	cat "$work/mig-owner.log"
fi

# -- a role without rights -------------------------------------------------------
st=0
RTLAB_DB=$NOBODY "$RTLAB" server --listen 127.0.0.1:0 >"$work/nobody.out" 2>"$work/nobody.log" || st=$?
# (PostgreSQL 15 lets every role use schema public, but not its tables.)
check "a role without table rights is refused at server start" test "$st" != 0
check "naming the role and the first missing rights" \
	grep -q "role rtlab_nobody lacks [0-9]* rights it needs (DELETE on table artifacts, INSERT on table artifacts" "$work/nobody.log"
check "pointing at the docs" grep -q "docs/database.md" "$work/nobody.log"

# -- the server role serves -------------------------------------------------------
export RTLAB_DB=$SERVER
TOKEN=$("$RTLAB" board add ext --kind local --quiet 2>"$work/board.err")
check "the server role registers a board" test ${#TOKEN} = 64
start_server "$work" || { not_ok "server starts as the least-privilege role"; cat "$work/board.err"; exit 1; }
ok "server starts as the least-privilege role"
if "$AGENT" run --testcase "$TOP/testcases/cyclictest-idle.yaml" --duration 1 \
	--board ext --clock host --upload "$URL/api/v1/runs" --token "$TOKEN" \
	--spool "$work/spool" >"$work/agent.log" 2>&1; then
	ok "an upload is stored through the least-privilege role"
else
	not_ok "an upload is stored through the least-privilege role"
	cat "$work/agent.log" "$work/server.log"
fi
n=$("$RTLAB" runs --board ext 2>/dev/null | grep -c complete)
check "the run is there (runs: $n)" test "$n" = 1
code=$(curl -s -o "$work/runs.json" -w '%{http_code}' "$URL/api/v1/runs")
check "the API lists it (HTTP $code)" test "$code" = 200
owner=$(RTLAB_DB=$OWNER "$RTLAB" db psql -tA -c "SELECT tableowner FROM pg_tables WHERE tablename='runs'" 2>/dev/null)
check "the tables belong to the owner role (got $owner)" test "$owner" = rtlab_owner

# -- a schema behind the binary ---------------------------------------------------
kill "$SPID" 2>/dev/null
wait "$SPID" 2>/dev/null
mkdir -p "$work/data"
cp -r "$TOP/schema" "$TOP/testcases" "$TOP/boards" "$TOP/kernels" "$work/data/"
printf 'SELECT 1;\n' >"$work/data/schema/999_future.sql"
st=0
RTLAB_DATADIR=$work/data "$RTLAB" server --listen 127.0.0.1:0 >"$work/behind.out" 2>"$work/behind.log" || st=$?
check "a schema behind the binary is refused" test "$st" != 0
check "saying which version it found and needs" \
	grep -q "schema is at version [0-9]*, this rtlab needs 999" "$work/behind.log"
