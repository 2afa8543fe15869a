#!/bin/sh
# Postgres image init script (mounted at /docker-entrypoint-initdb.d by docker-compose.yml): runs
# once, when the data directory is created, as the superuser. Creates the pipeline's owner role (a
# login role that owns the chaintap database and runs its migrations, not a superuser), the read
# roles the migrations grant (created here because the owner may not create roles), and a BI login
# role in chaintap_reader for Grafana. Names may be overridden, which only the tests do.
set -eu

: "${CHAINTAP_DB_PASSWORD:?the password of the pipeline owner role is required}"
: "${READER_DB_PASSWORD:?the password of the BI login role is required}"
database="${CHAINTAP_DB_NAME:-chaintap}"
owner="${CHAINTAP_DB_OWNER:-chaintap}"
reader_login="${CHAINTAP_DB_READER_LOGIN:-chaintap_bi}"

psql -v ON_ERROR_STOP=1 --no-psqlrc --username "${POSTGRES_USER:-postgres}" --dbname postgres \
  -v database="$database" -v owner="$owner" -v reader_login="$reader_login" \
  -v owner_password="$CHAINTAP_DB_PASSWORD" -v reader_password="$READER_DB_PASSWORD" <<'SQL'
-- Cluster-wide roles the migrations grant to; another database of the cluster may have them.
SELECT 'CREATE ROLE chaintap_reader NOLOGIN'
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'chaintap_reader') \gexec
SELECT 'CREATE ROLE chaintap_operator NOLOGIN'
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'chaintap_operator') \gexec

CREATE ROLE :"owner" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD :'owner_password';
CREATE ROLE :"reader_login" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION PASSWORD :'reader_password'
  IN ROLE chaintap_reader;

-- Owned by the pipeline's role: on Postgres 15 it then owns schema public too and can create the
-- tables, the archive schema and the partitions.
CREATE DATABASE :"database" OWNER :"owner";
REVOKE ALL ON DATABASE :"database" FROM PUBLIC;
GRANT CONNECT ON DATABASE :"database" TO chaintap_reader, chaintap_operator;
SQL
