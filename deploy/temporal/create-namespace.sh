#!/bin/sh
# Waits until the Temporal frontend at TEMPORAL_ADDRESS reports healthy, then creates the
# namespace NAMESPACE (default "default") unless it exists, with NAMESPACE_RETENTION (default
# 72h), and waits until the frontend serves it. Run by docker-compose.yml in the
# temporalio/admin-tools image, and by the native cluster test with the project's Temporal CLI
# (TEMPORAL_CLI).
set -eu
cli="${TEMPORAL_CLI:-temporal}"
address="${TEMPORAL_ADDRESS:?set TEMPORAL_ADDRESS (host:port of the frontend)}"
namespace="${NAMESPACE:-default}"
attempts="${HEALTH_ATTEMPTS:-60}"

# Runs "$@" until it succeeds, once a second, at most $attempts times; then shows its error.
retry() {
  i=0
  until "$@" >/dev/null 2>&1; do
    i=$((i + 1))
    if [ "$i" -ge "$attempts" ]; then
      echo "create-namespace: still failing after $attempts attempts: $*" >&2
      "$@" >&2 || true
      exit 1
    fi
    sleep 1
  done
}

retry "$cli" operator cluster health --address "$address"

if "$cli" operator namespace describe --address "$address" --namespace "$namespace" >/dev/null 2>&1; then
  echo "create-namespace: $namespace exists"
else
  "$cli" operator namespace create --address "$address" --namespace "$namespace" \
    --retention "${NAMESPACE_RETENTION:-72h}"
  echo "create-namespace: $namespace created"
fi
# The frontend serves a new namespace from its next registry refresh (up to ~10 s): wait for it,
# so that workers started after this job find it.
retry "$cli" workflow count --address "$address" --namespace "$namespace"
echo "create-namespace: $namespace served"
