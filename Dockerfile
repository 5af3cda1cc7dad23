# PACT Board for operators: one image for the board and the Admin API
# service (PACT_ROLE=admin). The board applies its migrations at start.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
COPY sdk/go.mod sdk/go.sum ./sdk/
RUN go mod download
COPY . .
# Every first-party plugin, then their pins (pact-admin plugin-pin) into the
# manifest pact-board embeds, then the board: PACT_AUTH_ISSUER,
# PACT_SLACK_WEBHOOK_URL and PACT_EXPORT_FORMAT run these exact binaries
# (docs/plugins.md, "Bundled plugins"), as make build does.
RUN for p in auth-oidc credential-biscuit credential-tenuo notifier-slack notifier-webhook; do \
      CGO_ENABLED=0 go build -trimpath -o /out/plugins/$p ./plugins/$p || exit 1; done \
 && CGO_ENABLED=0 go build -trimpath -o /out/pact-admin ./cmd/pact-admin \
 && for p in /out/plugins/*; do PACT_PLUGIN_DIR=/out/plugins /out/pact-admin plugin-pin $p || exit 1; done \
      > cmd/pact-board/bundled/plugins.json \
 && CGO_ENABLED=0 go build -trimpath -o /out/pact-board ./cmd/pact-board

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* && useradd --system --uid 10001 pact
COPY --from=build /out/ /usr/local/bin/
ENV HOST=0.0.0.0 PORT=8787 PACT_PLUGIN_DIR=/usr/local/bin/plugins
USER pact
EXPOSE 8787
ENTRYPOINT ["/usr/local/bin/pact-board"]
