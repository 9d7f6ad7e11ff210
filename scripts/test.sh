#!/usr/bin/env bash
# make test: run every test, after building and starting what the tests
# need (the Temporal CLI for private dev servers, Postgres).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

trap stop_postgres EXIT
prepare_tests

say "running gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './tools/*'))
[ -z "$unformatted" ] || die "gofmt would change: $unformatted"
go vet ./...
say "running the tests"
go test -count=1 -timeout 20m "$@" ./...
