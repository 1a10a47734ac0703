# shellcheck shell=bash
# Provide a PostgreSQL server for the store tests.
#
# Meant to be sourced (by .ci/run) as root on a Debian machine:
#
#     . .ci/postgres.sh
#
# It installs PostgreSQL with apt-get when it is missing, makes sure a cluster
# listens on 127.0.0.1:5432, creates the role and the database `laguna_test`,
# and exports LAGUNA_TEST_PG_URL. Running it again is harmless: every step
# first looks whether its work is already done. It never calls `exit` or
# `set -e`, because that would end or change the shell that sources it; on
# failure it prints why and returns 1.

_laguna_pg_setup() {
    local user="${LAGUNA_TEST_PG_USER:-laguna}"
    local password="${LAGUNA_TEST_PG_PASSWORD:-laguna}"
    local database="${LAGUNA_TEST_PG_DB:-laguna_test}"
    local host=127.0.0.1 port=5432 version cluster=main i

    if [ "$(id -u)" != 0 ]; then
        echo "postgres.sh: must run as root" >&2
        return 1
    fi

    if ! command -v pg_ctlcluster >/dev/null 2>&1 \
        || ! compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null; then
        echo "postgres.sh: installing PostgreSQL with apt-get" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null || { echo "postgres.sh: apt-get update failed" >&2; return 1; }
        apt-get install -y -qq --no-install-recommends postgresql >/dev/null \
            || { echo "postgres.sh: apt-get install postgresql failed" >&2; return 1; }
    fi

    # The newest server version installed; Debian 12 gives 15.
    version="$(ls /usr/lib/postgresql | sort -V | tail -n 1)"
    if [ -z "$version" ]; then
        echo "postgres.sh: no PostgreSQL server found under /usr/lib/postgresql" >&2
        return 1
    fi

    if ! pg_lsclusters -h | awk '{print $1 "/" $2}' | grep -qx "$version/$cluster"; then
        pg_createcluster --port="$port" "$version" "$cluster" >/dev/null \
            || { echo "postgres.sh: pg_createcluster failed" >&2; return 1; }
    fi

    # A cluster made by the package may sit on another port if 5432 was taken
    # when it was created; pin the port, and the address in a conf.d drop-in
    # (pg_conftool would write the address unquoted, which the server rejects).
    local conf_dir="/etc/postgresql/$version/$cluster/conf.d" changed=0
    local wanted="listen_addresses = '$host'"
    if [ "$(pg_conftool -s "$version" "$cluster" show port)" != "$port" ]; then
        pg_conftool "$version" "$cluster" set port "$port"
        changed=1
    fi
    if [ "$(cat "$conf_dir/laguna-test.conf" 2>/dev/null)" != "$wanted" ]; then
        mkdir -p "$conf_dir"
        echo "$wanted" > "$conf_dir/laguna-test.conf"
        changed=1
    fi
    if [ "$changed" = 1 ] && pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1 == v && $2 == c {print $4}' | grep -q online; then
        pg_ctlcluster "$version" "$cluster" restart \
            || { echo "postgres.sh: restarting the cluster failed" >&2; return 1; }
    fi

    if ! pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1 == v && $2 == c {print $4}' | grep -q online; then
        pg_ctlcluster "$version" "$cluster" start \
            || { echo "postgres.sh: starting the cluster failed; see /var/log/postgresql/" >&2; return 1; }
    fi

    for i in $(seq 1 30); do
        pg_isready -q -h "$host" -p "$port" && break
        sleep 1
    done
    if ! pg_isready -q -h "$host" -p "$port"; then
        echo "postgres.sh: server on $host:$port does not answer" >&2
        return 1
    fi

    _laguna_psql() {
        runuser -u postgres -- psql -X -q -v ON_ERROR_STOP=1 -h /var/run/postgresql -p "$port" "$@"
    }
    if [ "$(_laguna_psql -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$user'")" != 1 ]; then
        _laguna_psql -c "CREATE ROLE \"$user\" LOGIN PASSWORD '$password'" \
            || { echo "postgres.sh: creating role $user failed" >&2; return 1; }
    else
        _laguna_psql -c "ALTER ROLE \"$user\" LOGIN PASSWORD '$password'" >/dev/null \
            || { echo "postgres.sh: updating role $user failed" >&2; return 1; }
    fi
    if [ "$(_laguna_psql -tAc "SELECT 1 FROM pg_database WHERE datname = '$database'")" != 1 ]; then
        _laguna_psql -c "CREATE DATABASE \"$database\" OWNER \"$user\"" \
            || { echo "postgres.sh: creating database $database failed" >&2; return 1; }
    fi
    unset -f _laguna_psql

    export LAGUNA_TEST_PG_URL="postgresql+psycopg://$user:$password@$host:$port/$database"
    echo "postgres.sh: PostgreSQL $version ready, LAGUNA_TEST_PG_URL=$LAGUNA_TEST_PG_URL" >&2
}

_laguna_pg_setup
_laguna_pg_status=$?
unset -f _laguna_pg_setup
# `return` works when sourced; the `exit` fallback covers `bash .ci/postgres.sh`.
return "$_laguna_pg_status" 2>/dev/null || exit "$_laguna_pg_status"
