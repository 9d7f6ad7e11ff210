#!/usr/bin/env bash
# make run: start the whole service in the foreground on this machine:
# Postgres, the Temporal dev server with its UI, migrations, the worker and
# the API. Ctrl-C stops all of it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

export DATABASE_URL=${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/crawler?sslmode=disable}
export TEMPORAL_ADDRESS=${TEMPORAL_ADDRESS:-127.0.0.1:7233}
export TEMPORAL_NAMESPACE=${TEMPORAL_NAMESPACE:-default}
export CRAWLER_HTTP_ADDR=${CRAWLER_HTTP_ADDR:-127.0.0.1:8080}
# A local demo crawls local sites; a deployment leaves this false.
export CRAWLER_ALLOW_PRIVATE_NETWORKS=${CRAWLER_ALLOW_PRIVATE_NETWORKS:-true}
# The worker below runs a browser: playwright crawls are accepted.
export CRAWLER_BROWSER_AVAILABLE=${CRAWLER_BROWSER_AVAILABLE:-true}
UI_PORT=${TEMPORAL_UI_PORT:-8233}

PIDS=()
cleanup() {
  trap - INT TERM EXIT
  say "stopping"
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  stop_postgres
}
trap cleanup INT TERM EXIT

build_temporal
build_crawler
ensure_browser
export CRAWLER_PLAYWRIGHT_DRIVER_DIR=$PLAYWRIGHT_DRIVER_PATH
ensure_postgres "$DATABASE_URL"
export DATABASE_URL=$PG_URL

read -r T_HOST T_PORT <<<"$(url_host_port "$TEMPORAL_ADDRESS")"
if tcp_open "$T_HOST" "$T_PORT"; then
  say "using the Temporal server at $TEMPORAL_ADDRESS"
  UI_URL="(the UI of the server at $TEMPORAL_ADDRESS)"
else
  say "starting the Temporal dev server (state in .data/temporal.db, UI on 127.0.0.1:$UI_PORT)"
  export CRAWLER_TEMPORAL_UI_URL=${CRAWLER_TEMPORAL_UI_URL:-http://$T_HOST:$UI_PORT}
  mkdir -p "$DATA"
  sa_flags=()
  for sa in "${SEARCH_ATTRIBUTES[@]}"; do sa_flags+=(--search-attribute "$sa"); done
  "$TEMPORAL_BIN" server start-dev --ip "$T_HOST" --port "$T_PORT" --ui-port "$UI_PORT" \
    --db-filename "$DATA/temporal.db" --namespace "$TEMPORAL_NAMESPACE" --log-level warn \
    "${sa_flags[@]}" >"$DATA/temporal.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do
    tcp_open "$T_HOST" "$T_PORT" && break
    kill -0 "${PIDS[-1]}" 2>/dev/null || die "the Temporal server stopped, see .data/temporal.log"
    sleep 0.2
  done
  tcp_open "$T_HOST" "$T_PORT" || die "the Temporal server did not start, see .data/temporal.log"
  UI_URL="http://127.0.0.1:$UI_PORT"
fi

say "applying migrations"
bin/crawler migrate
KEY=$(bin/crawler apikey create --team local)

bin/crawler worker --browser &
PIDS+=($!)
bin/crawler serve &
PIDS+=($!)

API_HOST=${CRAWLER_HTTP_ADDR}
for _ in $(seq 1 100); do
  curl -fsS "http://$API_HOST/healthz" >/dev/null 2>&1 && break
  sleep 0.2
done

cat <<INFO

  API          http://$API_HOST
  Temporal UI  $UI_URL
  API key      $KEY

  curl -X POST http://$API_HOST/crawls -H "Authorization: Bearer $KEY" \\
       -H 'Content-Type: application/json' -d '{"startUrl": "https://example.com/", "maxResults": 10}'

  or with the command-line client:
  CRAWLER_API_URL=http://$API_HOST CRAWLER_API_KEY=$KEY \\
       bin/crawler crawl https://example.com/ --maxResults 10 --wait

  More keys (this Postgres):
  DATABASE_URL='$DATABASE_URL' bin/crawler apikey create --team NAME

  Ctrl-C stops everything.

INFO
wait -n "${PIDS[@]}" || true
say "a component stopped"
