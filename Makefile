# Shortcuts; the README's commands work without make too.
.PHONY: run test lint bench build

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

build:
	go build -o bin/parley ./cmd/parley
