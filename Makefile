# PACT Board. `make run` starts the board on an embedded PostgreSQL;
# `make test` installs what it can that is missing, then checks everything.

SHELL := /bin/bash
export PATH := $(PATH):/usr/local/go/bin

GO ?= go
# Run with `go run pkg@version`, so the tool stays out of our go.mod/go.sum.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# buf compiles the plugin protos without protoc; the protoc-gen-go plugins
# it runs are pinned in sdk/buf.gen.yaml.
BUF := github.com/bufbuild/buf/cmd/buf@v1.75.0
# The Go modules: the repository root, the published sdk, and the example
# third-party plugin (its own module, as a plugin author's would be). gofmt
# walks them all from the root.
MODULES := . sdk plugins/examples/notifier-hello

.PHONY: build plugins proto run test install-deps lint fmt-check vet staticcheck bench fmt clean

build: plugins
	@mkdir -p bin
	$(GO) build -o bin/pact-board ./cmd/pact-board
ifneq ($(wildcard cmd/pact-admin/main.go),)
	$(GO) build -o bin/pact-admin ./cmd/pact-admin
else
	@echo "cmd/pact-admin has no main.go yet; skipping bin/pact-admin"
endif

# Every plugin main under plugins/ becomes bin/plugins/<dir name>: the
# root module's plugins/<name>, and plugins/examples/<name>, each its own
# module, built from inside it.
plugins:
	@mkdir -p bin/plugins
	@for d in plugins/*/ plugins/examples/*/; do \
		d=$${d%/}; name=$$(basename $$d); \
		grep -qs '^package main$$' $$d/*.go || continue; \
		echo "go build bin/plugins/$$name"; \
		if [ -f $$d/go.mod ]; then \
			(cd $$d && $(GO) build -o $(CURDIR)/bin/plugins/$$name .) || exit 1; \
		else \
			$(GO) build -o bin/plugins/$$name ./$$d || exit 1; \
		fi; \
	done

# Regenerates sdk/internal/gen from sdk/proto (buf, no protoc needed).
proto:
	cd sdk && $(GO) run $(BUF) lint && $(GO) run $(BUF) generate

run: build
	./bin/pact-board --demo

test: install-deps lint
	@for m in $(MODULES); do \
		echo "== go test -race $$m"; \
		(cd $$m && $(GO) test -race -count=1 ./...) || exit 1; \
	done

# PostgreSQL server binaries (initdb, pg_ctl, postgres) for the embedded
# database and the test clusters: found, installed with apt-get when root on
# Debian/Ubuntu, or a clear message saying what to do.
install-deps:
	@if [ -n "$${PG_BIN:-}" ] || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null 2>&1; then \
		echo "PostgreSQL server binaries: found"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "PostgreSQL server binaries: installing with apt-get"; \
		apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql; \
	else \
		echo "PostgreSQL server binaries (initdb, pg_ctl, postgres) were not found." >&2; \
		echo "Install them (Debian/Ubuntu: sudo apt-get install postgresql; macOS: brew install postgresql@15)," >&2; \
		echo "or point PG_BIN at the directory holding them, then run make test again." >&2; \
		exit 1; \
	fi

lint: fmt-check vet staticcheck

fmt-check:
	@out=$$(gofmt -l .); \
	if [ -n "$$out" ]; then echo "gofmt would change these files (run make fmt):"; echo "$$out"; exit 1; fi

vet:
	@for m in $(MODULES); do \
		echo "== go vet $$m"; \
		(cd $$m && $(GO) vet ./...) || exit 1; \
	done

staticcheck:
	@for m in $(MODULES); do \
		echo "== staticcheck $$m"; \
		(cd $$m && $(GO) run $(STATICCHECK) ./...) || exit 1; \
	done

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

fmt:
	gofmt -w .

# Removes build output only; the embedded database in .pact/ is data.
clean:
	rm -rf bin
