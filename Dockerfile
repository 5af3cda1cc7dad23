# PACT Board in one image (docs/containers.md): every command a person runs,
# and the first-party plugins pinned into pact-board as make build pins
# them. It starts pact-board, which applies its migrations at start;
# PACT_ROLE=admin makes the same image the Admin API service.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY sdk/go.mod sdk/go.sum ./sdk/
RUN go mod download
COPY . .
ENV CGO_ENABLED=0
# The commands a person runs, each into /usr/local/bin. docs/containers_test.go
# holds this list to cmd/: each directory there is here, or is a developers'
# tool the test names.
ARG COMMANDS="pact-admin pact-board pact-channel pact-connect pact-runner pact-verify"
# Every first-party plugin (the globs make build pins), then their pins
# (pact-admin plugin-pin) into the manifest pact-board embeds, then the
# commands: PACT_AUTH_ISSUER, PACT_SLACK_WEBHOOK_URL, PACT_SMTP_URL and
# PACT_EXPORT_FORMAT run these exact binaries (docs/plugins.md, "Bundled
# plugins").
RUN for d in plugins/auth-* plugins/notifier-* plugins/credential-*; do \
      go build -trimpath -o "/out/plugins/${d#plugins/}" "./$d" || exit 1; done \
 && go build -trimpath -o /out/pact-admin ./cmd/pact-admin \
 && for p in /out/plugins/*; do PACT_PLUGIN_DIR=/out/plugins /out/pact-admin plugin-pin "$p" || exit 1; done \
      > cmd/pact-board/bundled/plugins.json \
 && for c in $COMMANDS; do go build -trimpath -o "/out/$c" "./cmd/$c" || exit 1; done

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* && useradd --system --uid 10001 pact
COPY --from=build /out/ /usr/local/bin/
ENV HOST=0.0.0.0 PORT=8787 PACT_PLUGIN_DIR=/usr/local/bin/plugins
USER pact
EXPOSE 8787
ENTRYPOINT ["/usr/local/bin/pact-board"]
