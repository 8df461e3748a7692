# Shortcuts; the README's commands work without make too.
.PHONY: run test lint bench load build

run:
	go run ./cmd/parley

test:
	go test -race ./...

lint:
	gofmt -l $$(git ls-files '*.go')
	go vet ./...
	go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

bench:
	go test -run '^$$' -bench . -benchmem ./...

# The load campaigns of docs/benchmarks.md (Linux, loopback ports 8090 and 8097).
load:
	scripts/load-campaign.sh

build:
	go build -o bin/parley ./cmd/parley
