package redact_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/core/redact/redacttest"
)

func corpus(t testing.TB) []redacttest.Secret {
	t.Helper()
	secrets, err := redacttest.Corpus()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(secrets), 40, "the corpus holds at least 40 shapes")
	return secrets
}

// TestTextRedactsTheCorpus checks every secret shape of the corpus, alone,
// in a sentence and as a structured value, leaves no trace of its secret.
func TestTextRedactsTheCorpus(t *testing.T) {
	for _, s := range corpus(t) {
		t.Run(s.Name, func(t *testing.T) {
			require.NotEmpty(t, s.Secret)
			require.Contains(t, s.Text, s.Secret, "the corpus entry holds its secret")
			for _, text := range []string{s.Text, "note: " + s.Text + "\nthanks", "- " + s.Text + ", then"} {
				got := redact.Text(text)
				require.NotContains(t, got, s.Secret, "%q became %q", text, got)
				require.Contains(t, got, redact.Mark)
			}
			v := redact.Value(map[string]any{"detail": s.Text, "list": []any{s.Text}})
			require.NotContains(t, stringsOf(v), s.Secret)
		})
	}
}

// TestTextLeavesOrdinaryWordsAlone guards the widened rules against eating
// prose: names that merely contain a secret word are not secret names.
func TestTextLeavesOrdinaryWordsAlone(t *testing.T) {
	for _, s := range []string{
		"the secretary: Jane", "max_tokens: 4096", "tokens = 12", "basic understanding of SQL",
		"impact_assessment_document_for_q3_2026", "Authorization is required", "task-1234567890abcdefgh",
		"client_id: web", "the key-value store",
	} {
		require.Equal(t, s, redact.Text(s))
	}
}

func stringsOf(v any) string {
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\n")
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for k, e := range x {
				b.WriteString(k + "\n")
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}
