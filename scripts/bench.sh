#!/usr/bin/env bash
# make bench: the Go benchmarks, then internal/crawlbench: this service and
# Crawlee crawl one generated link-dense site side by side, a 10,000-page
# crawl goes through worker kills and Temporal and Postgres restarts, and
# twenty crawls run beside a 10,000-page one; a client-rendered site is
# crawled with the browser engine beside Crawlee's PlaywrightCrawler. Tables go to stdout and to
# .data/bench/latest.md. Arguments are passed to crawlbench (for example
# -pages 2000 -rounds 1 -restarts=false -many=false for a quick look).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

trap stop_postgres EXIT
prepare_tests
build_crawler
if [ ! -f bench/crawlee/node_modules/@crawlee/playwright/package.json ]; then
  say "installing the peer crawler (Crawlee, pinned in bench/crawlee) from the npm registry"
  (cd bench/crawlee && npm ci --ignore-scripts --no-audit --no-fund >&2) || die "could not install Crawlee"
fi

if [ "${BENCH_GO:-1}" != 0 ]; then
  say "running the Go benchmarks (BENCH_GO=0 skips them)"
  go test -count=1 -run '^$' -bench . -benchmem -timeout 60m ./...
fi

say "crawling side by side with Crawlee, then the restart drill and the many-crawls run"
mkdir -p .data/bench
# The memory check's huge page: Node.js's manual on one page (5.6 MB),
# from the real manuals make test downloads.
huge=()
if [ -f "${CRAWLER_REALDOCS:-}/usr/share/doc/nodejs/api/all.html" ]; then
  huge=(-huge-page "$CRAWLER_REALDOCS/usr/share/doc/nodejs/api/all.html")
fi
go run ./internal/crawlbench -crawler bin/crawler -temporal "$TEMPORAL_BIN" -chromium "$CRAWLER_CHROMIUM_PATH" "${huge[@]}" \
  -database "${PG_URL%/*}/crawler_bench?sslmode=disable" "$@" | tee .data/bench/latest.md
