package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pgtest"
)

// startBoardWithOIDC starts a board on a fresh database whose people sign
// in through the real auth-oidc plugin binary, trusting issuer; its Admin
// API's audience is http://127.0.0.1:8787/admin. extra adds to or
// overrides the board's variables. It returns the board's URL and DSN.
func startBoardWithOIDC(t *testing.T, issuer string, extra map[string]string) (base, dsn string) {
	t.Helper()
	vars := oidcBoardVars(t, issuer)
	for k, v := range extra {
		vars[k] = v
	}
	base, _, _ = startBoard(t, vars)
	return base, vars["DATABASE_URL"]
}

// oidcBoardVars are the variables of a board on a fresh database whose
// people sign in through the real auth-oidc plugin binary, trusting issuer.
func oidcBoardVars(t *testing.T, issuer string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "auth-oidc"), "./plugins/auth-oidc")
	build.Dir = filepath.Join("..", "..")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)
	binary, err := os.ReadFile(filepath.Join(dir, "auth-oidc"))
	require.NoError(t, err)
	sum := sha256.Sum256(binary)

	dsn := pgtest.NewDSN(t)
	catalog, _ := json.Marshal([]map[string]any{{"name": "oidc", "kind": "authissuer", "binary": "auth-oidc",
		"sha256": hex.EncodeToString(sum[:]), "env": map[string]string{"PACT_OIDC_ISSUER": issuer}}})
	return map[string]string{"DATABASE_URL": dsn, "PACT_PLUGIN_DIR": dir, "PACT_PLUGINS": string(catalog),
		"PACT_PUBLIC_URL": "http://127.0.0.1:8787"}
}
