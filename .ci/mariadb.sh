# shellcheck shell=bash
# Provide a MariaDB server for the takeover tests (a Murano database on MySQL).
#
# Meant to be sourced (by .ci/run) as root on a Debian machine:
#
#     . .ci/mariadb.sh
#
# It installs Debian's mariadb-server with apt-get when it is missing, starts
# mariadbd by hand (no systemd here) on Debian's data directory, listening on
# 127.0.0.1:3306 only, creates the user `laguna` allowed to make and drop the
# databases `murano\_test\_%` (tests/mariadb.py makes one per test), and exports
# LAGUNA_TEST_MYSQL_URL. Running it again is harmless: a server that answers
# is left as it is. Like postgres.sh it never calls `exit` or `set -e`; on
# failure it prints why and returns 1.

_laguna_mariadb_setup() {
    local user="${LAGUNA_TEST_MYSQL_USER:-laguna}"
    local password="${LAGUNA_TEST_MYSQL_PASSWORD:-laguna}"
    local host=127.0.0.1 port=3306 datadir=/var/lib/mysql socket=/run/mysqld/mysqld.sock i

    if [ "$(id -u)" != 0 ]; then
        echo "mariadb.sh: must run as root" >&2
        return 1
    fi

    if [ ! -x /usr/sbin/mariadbd ] || ! command -v mariadb-admin >/dev/null 2>&1; then
        echo "mariadb.sh: installing mariadb-server with apt-get" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >/dev/null || { echo "mariadb.sh: apt-get update failed" >&2; return 1; }
        apt-get install -y -qq --no-install-recommends mariadb-server >/dev/null \
            || { echo "mariadb.sh: apt-get install mariadb-server failed" >&2; return 1; }
    fi

    if ! mariadb-admin --socket="$socket" --silent ping >/dev/null 2>&1; then
        # the package's postinst makes the system tables; a machine where it could
        # not (or whose datadir was emptied) gets them here
        if [ ! -d "$datadir/mysql" ]; then
            mariadb-install-db --user=mysql --datadir="$datadir" --skip-test-db >/dev/null \
                || { echo "mariadb.sh: mariadb-install-db failed" >&2; return 1; }
        fi
        mkdir -p /run/mysqld /var/log/mysql
        chown mysql:mysql /run/mysqld /var/log/mysql
        # detached from this shell (setsid), so that it outlives .ci/run's
        # subshells like the PostgreSQL cluster does; its log tells why it stopped
        setsid /usr/sbin/mariadbd --user=mysql --datadir="$datadir" --socket="$socket" \
            --bind-address="$host" --port="$port" \
            --log-error=/var/log/mysql/laguna-test.err </dev/null >/dev/null 2>&1 &
        for i in $(seq 1 30); do
            mariadb-admin --socket="$socket" --silent ping >/dev/null 2>&1 && break
            sleep 1
        done
        if ! mariadb-admin --socket="$socket" --silent ping >/dev/null 2>&1; then
            echo "mariadb.sh: mariadbd does not answer; see /var/log/mysql/laguna-test.err" >&2
            return 1
        fi
    fi

    # root logs in through the socket (unix_socket authentication); the tests
    # come over TCP from 127.0.0.1, which the server may name localhost
    local where sql=""
    for where in localhost 127.0.0.1; do
        sql+="CREATE USER IF NOT EXISTS '$user'@'$where' IDENTIFIED BY '$password';"
        sql+="ALTER USER '$user'@'$where' IDENTIFIED BY '$password';"
        sql+="GRANT ALL PRIVILEGES ON \`murano\\_test\\_%\`.* TO '$user'@'$where';"
    done
    mariadb --socket="$socket" -e "$sql" \
        || { echo "mariadb.sh: creating user $user failed" >&2; return 1; }

    export LAGUNA_TEST_MYSQL_URL="mysql+pymysql://$user:$password@$host:$port/"
    echo "mariadb.sh: MariaDB ready, LAGUNA_TEST_MYSQL_URL=$LAGUNA_TEST_MYSQL_URL" >&2
}

_laguna_mariadb_setup
_laguna_mariadb_status=$?
unset -f _laguna_mariadb_setup
# `return` works when sourced; the `exit` fallback covers `bash .ci/mariadb.sh`.
return "$_laguna_mariadb_status" 2>/dev/null || exit "$_laguna_mariadb_status"
