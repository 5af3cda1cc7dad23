package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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
	binary := authOIDCBinary(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "auth-oidc"), binary, 0o755))
	sum := sha256.Sum256(binary)

	dsn := pgtest.NewDSN(t)
	catalog, _ := json.Marshal([]map[string]any{{"name": "oidc", "kind": "authissuer", "binary": "auth-oidc",
		"sha256": hex.EncodeToString(sum[:]), "env": map[string]string{"PACT_OIDC_ISSUER": issuer}}})
	return map[string]string{"DATABASE_URL": dsn, "PACT_PLUGIN_DIR": dir, "PACT_PLUGINS": string(catalog),
		"PACT_PUBLIC_URL": "http://127.0.0.1:8787"}
}

// authOIDC is the auth-oidc plugin binary, built once per test process:
// linking it again for every board is most of a board's start.
var authOIDC struct {
	once sync.Once
	bin  []byte
	err  error
}

func authOIDCBinary(t *testing.T) []byte {
	t.Helper()
	authOIDC.once.Do(func() {
		dir, err := os.MkdirTemp("", "pact-auth-oidc-")
		if err != nil {
			authOIDC.err = err
			return
		}
		defer os.RemoveAll(dir)
		build := exec.Command("go", "build", "-o", filepath.Join(dir, "auth-oidc"), "./plugins/auth-oidc")
		build.Dir = filepath.Join("..", "..")
		if out, err := build.CombinedOutput(); err != nil {
			authOIDC.err = fmt.Errorf("build plugins/auth-oidc: %w\n%s", err, out)
			return
		}
		authOIDC.bin, authOIDC.err = os.ReadFile(filepath.Join(dir, "auth-oidc"))
	})
	require.NoError(t, authOIDC.err)
	return authOIDC.bin
}
