package redact_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/redact"
)

// Fake secrets are assembled at run time so no scanner mistakes them for real ones.
func fake(prefix string, n int) string { return prefix + strings.Repeat("A1b2", n/4+1)[:n] }

func TestTextRedactsEachKnownSecret(t *testing.T) {
	cases := map[string]string{
		"pem":       "-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----",
		"anthropic": fake("sk-ant-", 24),
		"openai":    fake("sk-proj-", 24),
		"github":    fake("ghp_", 30),
		"githubpat": fake("github_pat_", 30),
		"aws":       "AKIA" + strings.Repeat("Z", 16),
		"slack":     fake("xoxb-", 20),
		"pact":      fake("pact_", 43),
		"jwt":       fake("eyJ", 12) + "." + fake("", 12) + "." + fake("", 12),
	}
	for name, secret := range cases {
		t.Run(name, func(t *testing.T) {
			got := redact.Text("before " + secret + " after")
			require.Equal(t, "before "+redact.Mark+" after", got)
		})
	}
}

func TestTextKeepsContextAroundSecrets(t *testing.T) {
	require.Equal(t, "Authorization: Bearer "+redact.Mark, redact.Text("Authorization: Bearer "+fake("", 32)))
	require.Equal(t, "postgres://app:"+redact.Mark+"@db/x", redact.Text("postgres://app:hunter2@db/x"))
	require.Equal(t, "password = "+redact.Mark+", next", redact.Text("password = hunter2, next"))
	require.Equal(t, `api_key: `+redact.Mark, redact.Text(`api_key: "abc def"`))
	require.Equal(t, "nothing secret here", redact.Text("nothing secret here"))
}

func TestValueRedactsSecretKeysAndNestedStrings(t *testing.T) {
	in := map[string]any{
		"password": "x", "Token": 42, "note": "token=abc", "empty": nil,
		"list": []any{"ok", fake("ghp_", 30)}, "private_key": nil,
	}
	got := redact.Value(in).(map[string]any)
	require.Equal(t, redact.Mark, got["password"])
	require.Equal(t, redact.Mark, got["Token"])
	require.Equal(t, "token="+redact.Mark, got["note"])
	require.Nil(t, got["private_key"], "a null secret stays null")
	require.Equal(t, []any{"ok", redact.Mark}, got["list"])
	require.Equal(t, "x", in["password"], "the input is not modified")
}

func TestValueRedactsKeysThatEndInASecretName(t *testing.T) {
	in := map[string]any{"DB_PASSWORD": "x", "client_secret": "y", "aws_secret_access_key": "z",
		"max_tokens": 10, "secretary": "Jane", "Authorization": "Basic abc"}
	got := redact.Value(in).(map[string]any)
	for _, k := range []string{"DB_PASSWORD", "client_secret", "aws_secret_access_key", "Authorization"} {
		require.Equal(t, redact.Mark, got[k], k)
	}
	require.Equal(t, 10, got["max_tokens"])
	require.Equal(t, "Jane", got["secretary"])
}

func TestJSONRedactsDocumentsAndKeepsNumbers(t *testing.T) {
	in := `{"n": 12345678901234567890, "text": "DB_PASSWORD=hunter2 <ok> & done", "client_secret": "s"}`
	got := string(redact.JSON([]byte(in)))
	require.JSONEq(t, `{"n": 12345678901234567890, "text": "DB_PASSWORD=`+redact.Mark+` <ok> & done", "client_secret": "`+redact.Mark+`"}`, got)
	require.Contains(t, got, "12345678901234567890")
	require.Equal(t, `"`+redact.Mark+`"`, string(redact.JSON([]byte(`"`+fake("ghp_", 30)+`"`))))
	require.Equal(t, "", string(redact.JSON(nil)))
}

func TestLongValuesAreRedactedWhole(t *testing.T) {
	long := fake("", 5000)
	require.Equal(t, "DB_PASSWORD="+redact.Mark+" next", redact.Text("DB_PASSWORD="+long+" next"))
	require.Equal(t, "Authorization: Basic "+redact.Mark+"\nnext", redact.Text("Authorization: Basic "+long+"\nnext"))
	many := strings.Repeat("password=", 2000) + long
	require.Equal(t, "password="+redact.Mark, redact.Text(many), "names inside one value")
}

// A value that fills the window runs on to the next whitespace, whichever
// of the five it is, and no further (whitespaceOf).
func TestEachWhitespaceEndsALongValue(t *testing.T) {
	long := fake("", 400)
	for _, ws := range []string{" ", "\t", "\n", "\r", "\f"} {
		require.Equal(t, "DB_PASSWORD="+redact.Mark+ws+"next", redact.Text("DB_PASSWORD="+long+ws+"next"), "%q", ws)
	}
}

// Every secret is redacted, not the first of each kind: a rule's matches
// are all found (redact.go, FindAll… with no limit).
func TestTextRedactsEverySecretOfOneKind(t *testing.T) {
	aws1, aws2 := "AKIA"+strings.Repeat("Z", 16), "AKIA"+strings.Repeat("Y", 16)
	gh1, gh2 := fake("ghp_", 30), fake("ghp_", 32)
	got := redact.Text(aws1 + " and " + aws2 + "; " + gh1 + " " + gh2)
	require.Equal(t, redact.Mark+" and "+redact.Mark+"; "+redact.Mark+" "+redact.Mark, got)
}

// Secrets that touch, one ending where the next begins, merge into one
// Mark, as overlapping ones do (Text's doc).
func TestSecretsThatTouchBecomeOneMark(t *testing.T) {
	pem := "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----"
	require.Equal(t, "x "+redact.Mark+" y", redact.Text("x "+pem+fake("sk-ant-", 24)+" y"))
}

// Many names inside one long whitespace-free run: the text's whitespace is
// listed once and searched per name, not rescanned per name. Quadratic, this
// text takes tens of seconds; this way, a fraction of one. Speed is measured
// here, never timed in a test.
func BenchmarkManyNamesInOneLongRun(b *testing.B) {
	many := strings.Repeat("password=", 80000) + fake("", 300)
	for b.Loop() {
		if got := redact.Text(many); got != "password="+redact.Mark {
			b.Fatalf("redacted to %.40q…", got)
		}
	}
}
