// Package redacttest loads the corpus of secret shapes the redaction tests
// write everywhere: synthetic, format-valid examples of the credentials
// people paste into tasks, notes and messages.
package redacttest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Secret is one corpus entry: Text as someone would write it, Secret the
// part of it that must never be stored.
type Secret struct {
	Name   string `json:"name"`
	Text   string `json:"text"`
	Secret string `json:"secret"`
}

// Corpus reads core/redact/testdata/secrets.json, wherever the test runs:
// go test runs a test in its package's directory, so the file is found
// walking up from there (not from this file's compiled-in path, which
// -trimpath, as make proofs builds, leaves relative).
func Corpus() ([]Secret, error) {
	const rel = "core/redact/testdata/secrets.json"
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, rel)); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			return nil, fmt.Errorf("redacttest: no %s above the test's directory", rel)
		}
		dir = up
	}
	raw, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		return nil, err
	}
	var out []Secret
	return out, json.Unmarshal(raw, &out)
}
