#!/bin/sh
# Creates Temporal's two PostgreSQL databases and brings their schemas to the version of the
# schema files beside the SQL tool (create-database, setup-schema -v 0.0, update-schema -d).
# Idempotent: a second run finds everything in place. Run by docker-compose.yml in the
# temporalio/admin-tools image, and by the native cluster test (test/cluster) with the tool
# built from the Go module. Connection: the SQL tool's own variables SQL_HOST, SQL_PORT,
# SQL_USER, SQL_PASSWORD; SQL_PLUGIN defaults to postgres12.
set -eu
tool="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"
schema="${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}"
export SQL_PLUGIN="${SQL_PLUGIN:-postgres12}"

setup() {
  echo "schema setup: database $1 from $schema/$2/versioned"
  "$tool" --db "$1" create-database
  "$tool" --db "$1" setup-schema -v 0.0
  "$tool" --db "$1" update-schema -d "$schema/$2/versioned"
}

setup "${DBNAME:-temporal}" temporal
setup "${VISIBILITY_DBNAME:-temporal_visibility}" visibility
echo "schema setup: done"
