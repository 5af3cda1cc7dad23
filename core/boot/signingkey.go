package boot

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/pactboard/pact/sdk/errs"
)

// MinSigningKeyLen is the shortest PACT_SIGNING_KEY the board accepts.
const MinSigningKeyLen = 32

// SigningKeyFile is where the embedded default keeps its generated key,
// relative to PACT_DATA_DIR.
const SigningKeyFile = "signing.key"

// SigningKey returns the PACT_SIGNING_KEY the board runs with:
//
//   - PACT_SIGNING_KEY when set (at least 32 characters);
//   - "" when only PACT_BOARD_KEYS is set (legacy HMAC mandates then never
//     verify);
//   - on the embedded default, the key in PACT_DATA_DIR/signing.key, created
//     (48 random base64url characters, mode 0600) on first use, so `make run`
//     needs no setup.
//
// With DATABASE_URL and neither variable it returns InvalidRequest: a board
// on a shared database must not invent a key nobody else knows.
func SigningKey(cfg *Config) (string, error) {
	if cfg.SigningKey != "" {
		if utf8.RuneCountInString(cfg.SigningKey) < MinSigningKeyLen {
			return "", errs.E(errs.InvalidRequest, "PACT_SIGNING_KEY is too short: it needs at least %d random characters", MinSigningKeyLen)
		}
		return cfg.SigningKey, nil
	}
	if cfg.BoardKeys != "" {
		return "", nil
	}
	if !cfg.Embedded() {
		return "", errs.E(errs.InvalidRequest, "PACT_SIGNING_KEY is required (at least %d random characters) when DATABASE_URL is set", MinSigningKeyLen)
	}
	return localKey(filepath.Join(cfg.DataDir, SigningKeyFile))
}

// localKey reads the key file, or creates it. A new key is written to a
// temporary file and linked into place, so two processes starting at once
// agree on one key and neither reads a half-written file.
func localKey(path string) (string, error) {
	key, err := readKey(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	// 0755: when root runs the embedded cluster as postgres, that user must
	// be able to enter the data directory to reach pg/ below it.
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	raw := make([]byte, 36) // 36 bytes are 48 base64url characters
	if _, err := rand.Read(raw); err != nil {
		return "", err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".signing-*.tmp")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(base64.RawURLEncoding.EncodeToString(raw) + "\n")
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o600)); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return readKey(path) // ours, or the one another process linked first
}

func readKey(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	key := strings.TrimSpace(string(b))
	if utf8.RuneCountInString(key) < MinSigningKeyLen {
		return "", errs.E(errs.InvalidRequest, "%s holds a key shorter than %d characters; delete it to generate a new one "+
			"(mandates signed with the old key stop verifying)", path, MinSigningKeyLen)
	}
	return key, nil
}
