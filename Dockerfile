# One image for every role of the service: `crawler serve`, `crawler worker`
# and `crawler migrate`.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o /out/crawler ./cmd/crawler

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/crawler /usr/local/bin/crawler
USER nobody
ENTRYPOINT ["crawler"]
CMD ["help"]
