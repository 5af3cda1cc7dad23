// Package redacttest loads the corpus of secret shapes the redaction tests
// write everywhere: synthetic, format-valid examples of the credentials
// people paste into tasks, notes and messages.
package redacttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
)

// Secret is one corpus entry: Text as someone would write it, Secret the
// part of it that must never be stored.
type Secret struct {
	Name   string `json:"name"`
	Text   string `json:"text"`
	Secret string `json:"secret"`
}

// Corpus reads core/redact/testdata/secrets.json, wherever the test runs.
func Corpus() ([]Secret, error) {
	_, here, _, _ := runtime.Caller(0)
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(here), "..", "testdata", "secrets.json"))
	if err != nil {
		return nil, err
	}
	var out []Secret
	return out, json.Unmarshal(raw, &out)
}
