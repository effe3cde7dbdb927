# Timbre. `make run` sets up and runs everything; `make test` runs every test.
SHELL := /bin/bash
GO ?= go
export TIMBRE_TEST_POSTGRES_URL ?= postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable

.PHONY: run build deps web test test-go test-web bench clean

## run: install what is missing, build, and serve at http://localhost:8080 (data in ./data)
run: build
	./bin/timbre serve --addr $${TIMBRE_ADDR:-0.0.0.0:8080} --data $${TIMBRE_DATA_DIR:-./data}

## deps: apt and npm packages (only what is missing)
deps:
	./scripts/install-deps.sh

## web: build the React app (embedded into the binary)
web: deps
	cd web && npm run build
	touch web/dist/.gitkeep

## build: bin/timbre with the web app embedded
build: web
	$(GO) build -o bin/timbre ./cmd/timbre

## test: every test — Go (SQLite and PostgreSQL, engines, API, SDK compatibility, browser) and the web app's
test: web
	$(GO) vet ./...
	cd web && npm run typecheck && npm run lint && npm run check:api && npm test
	$(GO) test -count=1 -timeout 30m ./...

## bench: speed against the raw engines, history listing on SQLite and PostgreSQL
bench: web
	./scripts/bench.sh

clean:
	rm -rf bin web/dist/assets web/dist/index.html
