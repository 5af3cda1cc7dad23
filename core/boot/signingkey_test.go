package boot_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/sdk/errs"
)

func config(t *testing.T, kv map[string]string) *boot.Config {
	t.Helper()
	c, err := boot.Load(env(kv))
	require.NoError(t, err)
	return c
}

const goodKey = "0123456789abcdef0123456789abcdef"

func TestSigningKeyFromTheEnvironment(t *testing.T) {
	key, err := boot.SigningKey(config(t, map[string]string{"PACT_SIGNING_KEY": goodKey, "DATABASE_URL": "postgres://x"}))
	require.NoError(t, err)
	require.Equal(t, goodKey, key)
}

func TestSigningKeyTooShort(t *testing.T) {
	_, err := boot.SigningKey(config(t, map[string]string{"PACT_SIGNING_KEY": "short"}))
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "at least 32")
}

func TestSigningKeyNotNeededWithBoardKeys(t *testing.T) {
	key, err := boot.SigningKey(config(t, map[string]string{"PACT_BOARD_KEYS": "k1=abc", "DATABASE_URL": "postgres://x"}))
	require.NoError(t, err)
	require.Empty(t, key)
}

func TestSigningKeyRequiredWithDatabaseURL(t *testing.T) {
	_, err := boot.SigningKey(config(t, map[string]string{"DATABASE_URL": "postgres://x"}))
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
	require.ErrorContains(t, err, "PACT_SIGNING_KEY is required (at least 32 random characters) when DATABASE_URL is set")
}

func TestSigningKeyIsGeneratedOnceForTheEmbeddedDefault(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	cfg := config(t, map[string]string{"PACT_DATA_DIR": dir})

	first, err := boot.SigningKey(cfg)
	require.NoError(t, err)
	require.Len(t, first, 48)
	require.NotContains(t, first, "+")
	require.NotContains(t, first, "/")

	st, err := os.Stat(filepath.Join(dir, boot.SigningKeyFile))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), st.Mode().Perm())

	again, err := boot.SigningKey(cfg)
	require.NoError(t, err)
	require.Equal(t, first, again, "the key survives restarts")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "no temporary files are left behind")
}

func TestSigningKeyConcurrentStartsAgree(t *testing.T) {
	cfg := config(t, map[string]string{"PACT_DATA_DIR": t.TempDir()})
	keys := make([]string, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := boot.SigningKey(cfg)
			if err != nil {
				k = err.Error()
			}
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys {
		require.Equal(t, keys[0], k)
	}
}

func TestSigningKeyFileTooShort(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, boot.SigningKeyFile), []byte("tiny\n"), 0o600))
	_, err := boot.SigningKey(config(t, map[string]string{"PACT_DATA_DIR": dir}))
	require.Error(t, err)
	require.True(t, strings.Contains(err.Error(), "delete it"), err.Error())
}

// A key of exactly MinSigningKeyLen characters (runes, not bytes) is
// accepted, from PACT_SIGNING_KEY and from the key file alike; one
// character fewer is refused.
func TestSigningKeyOfExactlyTheMinimumLength(t *testing.T) {
	for _, key := range []string{strings.Repeat("k", boot.MinSigningKeyLen), strings.Repeat("é", boot.MinSigningKeyLen)} {
		short := string([]rune(key)[1:])

		got, err := boot.SigningKey(config(t, map[string]string{"PACT_SIGNING_KEY": key}))
		require.NoError(t, err)
		require.Equal(t, key, got)
		_, err = boot.SigningKey(config(t, map[string]string{"PACT_SIGNING_KEY": short}))
		require.ErrorContains(t, err, "PACT_SIGNING_KEY is too short")

		dir := t.TempDir()
		file := filepath.Join(dir, boot.SigningKeyFile)
		require.NoError(t, os.WriteFile(file, []byte(key+"\n"), 0o600))
		got, err = boot.SigningKey(config(t, map[string]string{"PACT_DATA_DIR": dir}))
		require.NoError(t, err)
		require.Equal(t, key, got)
		require.NoError(t, os.WriteFile(file, []byte(short+"\n"), 0o600))
		_, err = boot.SigningKey(config(t, map[string]string{"PACT_DATA_DIR": dir}))
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err))
		require.ErrorContains(t, err, "holds a key shorter than 32 characters")
	}
}
