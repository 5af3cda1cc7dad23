package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The settings come from the environment, and whatever it lacks from the
// env file pact-connect writes: PACT_ENV_FILE, <PACT_AGENT_ID>.env in
// PACT_HOOK_DIR (or ~/.config/pact), or the one *.env file there.
func TestConfigComesFromTheEnvironmentThenTheEnvFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
		return p
	}
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	bram := write("bram.env", "PACT_URL='https://board.example/'\nexport PACT_TOKEN='pact_br'\"'\"'am'\n")

	c, err := loadConfig(env("PACT_URL", "http://b", "PACT_TOKEN", "pact_x", "PACT_AGENT_ID", "x", "PACT_PACTS", " p1, ,p2 "))
	require.NoError(t, err)
	require.Equal(t, &config{URL: "http://b", Token: "pact_x", Agent: "x", Pacts: []string{"p1", "p2"}}, c)

	c, err = loadConfig(env("PACT_HOOK_DIR", dir))
	require.NoError(t, err, "the one *.env file")
	require.Equal(t, &config{URL: "https://board.example", Token: "pact_br'am", Agent: "bram"}, c)

	c, err = loadConfig(env("PACT_ENV_FILE", bram, "PACT_TOKEN", "pact_env"))
	require.NoError(t, err)
	require.Equal(t, "pact_env", c.Token, "the environment comes first")
	require.Equal(t, "bram", c.Agent)

	write("wanda.env", "PACT_URL=http://w\nPACT_TOKEN=pact_w\n")
	_, err = loadConfig(env("PACT_HOOK_DIR", dir))
	require.ErrorContains(t, err, "holds 2 *.env files", "two agents: say which")
	c, err = loadConfig(env("PACT_HOOK_DIR", dir, "PACT_AGENT_ID", "wanda"))
	require.NoError(t, err)
	require.Equal(t, &config{URL: "http://w", Token: "pact_w", Agent: "wanda"}, c)

	c, err = loadConfig(env("HOME", t.TempDir(), "PACT_ENV_FILE", write("x.env", "PACT_URL=http://w\n")))
	require.Nil(t, c)
	require.ErrorContains(t, err, "sets no PACT_TOKEN")
	_, err = loadConfig(env("HOME", dir, "PACT_AGENT_ID", "bram"))
	require.ErrorContains(t, err, filepath.Join(dir, ".config", "pact", "bram.env"), "~/.config/pact by default")
}
