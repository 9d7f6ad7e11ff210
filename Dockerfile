# One image per kind of worker, from one build of `crawler`:
#   runtime  `crawler serve`, `crawler worker` and `crawler migrate` (the
#            default target: debian-slim and the binary);
#   browser  `crawler worker --browser`: runtime plus Debian's Chromium and
#            the Playwright driver pinned in tools/playwright.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/crawler ./cmd/crawler

FROM debian:bookworm-slim AS base
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/crawler /usr/local/bin/crawler
ENTRYPOINT ["crawler"]
CMD ["help"]

# The driver is node plus the playwright-core package, laid out as
# playwright-go expects: DIR/node and DIR/package/cli.js.
FROM base AS browser
RUN apt-get update && apt-get install -y --no-install-recommends chromium nodejs npm fonts-liberation \
    && rm -rf /var/lib/apt/lists/*
COPY tools/playwright/package.json tools/playwright/package-lock.json /opt/playwright/
RUN cd /opt/playwright && npm ci --ignore-scripts --no-audit --no-fund \
    && mkdir -p /opt/playwright-driver \
    && ln -s /usr/bin/node /opt/playwright-driver/node \
    && ln -s /opt/playwright/node_modules/playwright-core /opt/playwright-driver/package
ENV CRAWLER_CHROMIUM_PATH=/usr/lib/chromium/chromium \
    CRAWLER_PLAYWRIGHT_DRIVER_DIR=/opt/playwright-driver \
    HOME=/tmp
USER nobody
CMD ["worker", "--browser"]

FROM base AS runtime
USER nobody
