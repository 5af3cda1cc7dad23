package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/pluginhost"
)

// fakePlugin writes a file standing for a plugin binary: plugin-pin only
// hashes it.
func fakePlugin(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\necho "+name+"\n"), 0o755))
	return path
}

// plugin-pin prints an entry PACT_PLUGINS takes as it is: the binary's
// sha256, the kind and name its file name says, and the file's name when it
// lives in PACT_PLUGIN_DIR.
func TestPluginPin(t *testing.T) {
	c := newCLI(t)
	dir := t.TempDir()
	c.env["PACT_PLUGIN_DIR"] = dir
	path := fakePlugin(t, dir, "credential-biscuit")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(raw)

	_, out, _ := c.run("plugin-pin", path)
	specs, err := pluginhost.ParseCatalog("[" + out + "]")
	require.NoError(t, err, out)
	require.Len(t, specs, 1)
	require.Equal(t, "biscuit", specs[0].Name)
	require.Equal(t, pluginhost.KindCredential, specs[0].Kind)
	require.Equal(t, "credential-biscuit", specs[0].Binary)
	require.Equal(t, hex.EncodeToString(sum[:]), specs[0].SHA256)

	elsewhere := fakePlugin(t, t.TempDir(), "mine")
	got := c.ok("plugin-pin", elsewhere, "--kind", "authissuer", "--name", "sso")
	require.Equal(t, map[string]any{"name": "sso", "kind": "authissuer", "binary": elsewhere, "sha256": got["sha256"]}, got)

	require.Contains(t, c.refused("invalid_request", "plugin-pin", elsewhere), "--kind")
	c.refused("invalid_request", "plugin-pin", filepath.Join(dir, "nope"))
	c.refused("invalid_request", "plugin-pin", elsewhere, "--kind", "printer")
	c.refused("invalid_request", "plugin-pin")
}
