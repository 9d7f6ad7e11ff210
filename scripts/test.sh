#!/usr/bin/env bash
# make test: run every test, after building and starting what the tests
# need (the Temporal CLI for private dev servers, Postgres).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

trap stop_postgres EXIT
build_temporal
ensure_browser
ensure_postgres "${CRAWLER_TEST_DATABASE_URL:-${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}}"
export CRAWLER_TEST_DATABASE_URL=$PG_URL
export TEMPORAL_CLI_PATH=$TEMPORAL_BIN

say "running go vet"
go vet ./...
say "running the tests"
go test -count=1 -timeout 20m "$@" ./...
