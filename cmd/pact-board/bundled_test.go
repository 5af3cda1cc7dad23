package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/logtest"
	"github.com/pactboard/pact/core/pgtest"
	"github.com/pactboard/pact/core/pluginhost"
)

// bundledOIDC is a PACT_PLUGIN_DIR holding the real auth-oidc binary and the
// manifest make build would embed for it: pact-admin plugin-pin's entry
// (pluginhost.PinEntry), read back as pact-board reads its own.
func bundledOIDC(t *testing.T) (dir string, manifest []pluginhost.Spec) {
	t.Helper()
	dir = t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "auth-oidc"), authOIDCBinary(t), 0o755))
	entry, err := pluginhost.PinEntry(filepath.Join(dir, "auth-oidc"), dir, "", "")
	require.NoError(t, err)
	raw, err := json.Marshal(entry)
	require.NoError(t, err)
	manifest, err = pluginhost.ParseManifest(raw)
	require.NoError(t, err)
	return dir, manifest
}

// invitations asks the Admin API for the invitations of token's account:
// it answers 200 only when an auth issuer plugin verified the token.
func invitations(t *testing.T, base, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, base+"/admin/api/invitations", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// With the manifest make build embeds and only PACT_AUTH_ISSUER set (no
// PACT_PLUGINS), the board runs the bundled auth-oidc, pinned: a person's
// token verifies. A binary whose sum is not the pin never runs.
func TestBundledIssuerRunsWithOnlyTheVariable(t *testing.T) {
	ctx := context.Background()
	iss := newOIDCIssuer(t)
	token := iss.token(t, "oidc-sub-ana", "ana@example.com", "http://127.0.0.1:8787/admin")
	start := func(t *testing.T, manifest []pluginhost.Spec, dir string) (string, *logtest.Buffer) {
		dsn := pgtest.NewDSN(t)
		m, logs, _ := startMainWith(t, map[string]string{"DATABASE_URL": dsn, "PACT_AUTH_ISSUER": iss.URL,
			"PACT_PLUGIN_DIR": dir, "PACT_PUBLIC_URL": "http://127.0.0.1:8787"}, func(m *Main) { m.Manifest = manifest })
		d, err := db.Open(ctx, dsn)
		require.NoError(t, err)
		t.Cleanup(d.Close)
		ident := identity.NewService(d, ledger.New(nil), nil)
		_, err = ident.AddHuman(ctx, "", identity.HumanInput{ID: "ana", Name: "Ana", Role: identity.Owner, Email: "ana@example.com"})
		require.NoError(t, err)
		return "http://" + m.Addr().String(), logs
	}

	t.Run("Pinned", func(t *testing.T) {
		dir, manifest := bundledOIDC(t)
		base, logs := start(t, manifest, dir)
		code, body := invitations(t, base, token)
		require.Equal(t, http.StatusOK, code, body+"\n"+logs.String())
		require.Contains(t, body, `"ana"`)
	})

	t.Run("OtherSumRefused", func(t *testing.T) {
		dir, manifest := bundledOIDC(t)
		found := manifest[0].SHA256
		manifest[0].SHA256 = strings.Repeat("0", 64) // the board was built with another auth-oidc
		base, logs := start(t, manifest, dir)
		code, body := invitations(t, base, token)
		require.NotEqual(t, http.StatusOK, code, body)
		for _, want := range []string{"plugin did not start", found, "built with the pin " + manifest[0].SHA256, "make build"} {
			require.Contains(t, logs.String(), want)
		}
	})

	t.Run("NoPin", func(t *testing.T) {
		dir, _ := bundledOIDC(t)
		base, logs := start(t, nil, dir) // a pact-board built with go build
		code, body := invitations(t, base, token)
		require.Equal(t, http.StatusUnauthorized, code, body)
		require.Contains(t, body, "OAuth is not configured")
		require.Contains(t, logs.String(), "PACT_AUTH_ISSUER is set but this pact-board has no pin for the bundled plugin auth-oidc")
	})
}

// What make run prints after the demo set-up: the plugins on, and the
// variable that turns on each bundled plugin that is off.
func TestPluginSummary(t *testing.T) {
	const sum = "1111111111111111111111111111111111111111111111111111111111111111"
	manifest, err := pluginhost.ParseManifest([]byte(`{"name": "biscuit", "kind": "credential", "binary": "credential-biscuit", "sha256": "` + sum + `"}`))
	require.NoError(t, err)
	vars := map[string]string{"PACT_EXPORT_FORMAT": "biscuit", "PACT_SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/x"}
	cfg, err := boot.Load(func(k string) string { return vars[k] })
	require.NoError(t, err)
	host, err := pluginhost.FromConfig(cfg, manifest, hclog.NewNullLogger(), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = host.Close() })

	var out bytes.Buffer
	pluginSummary(&out, cfg, host)
	text := out.String()
	require.Contains(t, text, "Plugins on:\n  biscuit (credential plugin ")
	require.Contains(t, text, "PACT_SLACK_WEBHOOK_URL is set but slack does not run")
	require.Contains(t, text, "  PACT_AUTH_ISSUER=https://login.example.com  people sign in")
	require.Contains(t, text, "  PACT_EXPORT_FORMAT=tenuo  every claim exports a Tenuo credential")
	require.NotContains(t, text, "PACT_EXPORT_FORMAT=biscuit", "a plugin that is on is not offered")
	require.Contains(t, text, "PACT_PLUGINS")
}

// The manifest this binary embeds (none on a fresh clone, make build's
// otherwise) is one pact-board can read.
func TestEmbeddedManifestParses(t *testing.T) {
	m, err := bundledManifest()
	require.NoError(t, err)
	for _, s := range m {
		require.Len(t, s.SHA256, 64, "every bundled plugin is pinned")
	}
}
