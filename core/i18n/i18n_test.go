package i18n

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/errs"
)

func TestCheckAcceptsOnlyTheBoardsLanguages(t *testing.T) {
	for in, want := range map[string]string{"en": "en", "th": "th", " TH ": "th"} {
		got, err := Check(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got)
	}
	for _, in := range []string{"", "fr", "th-TH", "english"} {
		_, err := Check(in)
		e, ok := errs.As(err)
		require.True(t, ok, in)
		require.Equal(t, errs.InvalidRequest, e.Code)
		require.Contains(t, e.Message, "language must be one of en, th")
	}
}

func TestCatalogFallsBackToEnglish(t *testing.T) {
	fsys := fstest.MapFS{
		"l/active.en.json": {Data: []byte(`{"hello": "Hello {{.Name}}", "bye": "Bye"}`)},
		"l/active.th.json": {Data: []byte(`{"hello": "สวัสดี {{.Name}}"}`)},
	}
	c, err := NewCatalog(fsys, "l")
	require.NoError(t, err)
	require.Equal(t, "สวัสดี Ana", c.Text("th", "hello", map[string]any{"Name": "Ana"}))
	require.Equal(t, "Hello Ana", c.Text("en", "hello", map[string]any{"Name": "Ana"}))
	require.Equal(t, "Hello Ana", c.Text("", "hello", map[string]any{"Name": "Ana"}), "empty means English")
	require.Equal(t, "Hello Ana", c.Text("fr", "hello", map[string]any{"Name": "Ana"}), "unknown means English")
	require.Equal(t, "Bye", c.Text("th", "bye", nil), "a message Thai lacks falls back to English")
	require.Equal(t, "nope", c.Text("th", "nope", nil))
	require.Equal(t, []string{"en", "th"}, c.Langs())
	require.Equal(t, []string{"bye", "hello"}, c.IDs("en"))

	_, err = NewCatalog(fstest.MapFS{"l/active.th.json": {Data: []byte(`{}`)}}, "l")
	require.ErrorContains(t, err, "no English catalog")
}
