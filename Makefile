# The two commands of the README: `make run` starts the whole service,
# `make test` runs every test. Both install and start what they need.
.PHONY: run test bench build temporal clean

run:
	@scripts/run.sh

test:
	@scripts/test.sh

bench:
	@scripts/bench.sh

build:
	go build -o bin/crawler ./cmd/crawler

temporal:
	@bash -c 'source scripts/lib.sh && build_temporal'

clean:
	rm -rf bin
