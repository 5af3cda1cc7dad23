package redact_test

import (
	"strings"
	"testing"

	"github.com/pactboard/pact/core/redact"
)

// FuzzRedact checks, for any text around any corpus secret: redaction
// never panics, redacting twice changes nothing more than redacting once,
// and the secret is gone when whitespace separates it from the text around
// it (glued to other characters, a token is another word, which rules keyed
// on word boundaries rightly leave alone).
func FuzzRedact(f *testing.F) {
	secrets := corpus(f)
	f.Add("", "", uint(0))
	f.Add("password=", "tail", uint(3))
	f.Add("Bearer", ", then", uint(41))
	f.Add("-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", uint(30))
	f.Add(`{"client_secret": "`, `"}`, uint(45))
	f.Fuzz(func(t *testing.T, before, after string, pick uint) {
		s := secrets[pick%uint(len(secrets))]
		for _, text := range []string{before + after, before + " " + s.Text + " " + after} {
			once := redact.Text(text)
			if twice := redact.Text(once); twice != once {
				t.Fatalf("not idempotent:\n%q\n→ %q\n→ %q", text, once, twice)
			}
		}
		got := redact.Text(before + " " + s.Text + " " + after)
		if strings.Contains(got, s.Secret) {
			t.Fatalf("%s survived: %q", s.Name, got)
		}
	})
}
