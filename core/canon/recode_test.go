package canon_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/canon"
)

// recodeSeeds are inputs for AppendJSON's fast path and for every reason it
// has to leave one to Decode and Marshal.
var recodeSeeds = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-0`, `-0.0`, `1.0`, `1e2`, `1E-7`, `-12.50`, `1e400`,
	`123456789012345678901234567890`, `0.1`, `100000.0`, `1.5e300`, `3.0e-5`,
	`{"n": 1, "note": "heartbeat from the bench", "status": "working"}`,
	`{"b":1,"a":2,"c":{"z":[3,2,1],"y":null},"aa":[],"":{}}`,
	`{"é": "ünïcødé ✓ 😀", "e": "\u00e9\u2028\u2029<>&\u007f", "ß": 1}`,
	`{"q": "say \"hi\" \\ \/ back", "c": "\b\f\n\r\t\u0000\u001f\u0001"}`,
	`{"pair": "\ud83d\ude00", "lone": "\ud800", "low": "\udc00x", "half": "\ud83dx"}`,
	`{"a": 1, "a": 2}`, `{"k\u0061": 1, "ka": 2}`, `{"b": {"x": 1, "x": [1]}}`,
	"\"bad \xff utf8\"", "{\"\xc3\": 1}", "\"\xed\xa0\x80\"",
	`{"a":1}]`, `{"a":1} {}`, `[1,]`, `{"a":1,}`, `[01]`, `[1.]`, `[.5]`, `[-]`, `[1e]`, `[+1]`,
	`"tab	inside"`, `nul`, `tru`, `[1 2]`, `{"a" 1}`, `{1: 2}`, `"\x"`, `"\u12"`, `"unterminated`,
	"", "   ", " \t\r\n[ 1 , { \"b\" : 2 , \"a\" : 1 } ] \n",
	strings.Repeat("[", 1200) + strings.Repeat("]", 1200),
	strings.Repeat(`{"a":`, 900) + "1" + strings.Repeat("}", 900),
}

func marshalDecoded(raw []byte) ([]byte, error) {
	tree, err := canon.Decode(raw)
	if err != nil {
		return nil, err
	}
	return canon.Marshal(tree)
}

// requireSameAsMarshal fails unless AppendJSON, and r, which may have read
// other input before, give exactly Marshal(Decode)'s bytes, or fail where it
// fails, and leave dst's own bytes alone.
func requireSameAsMarshal(t *testing.T, r *canon.Recoder, raw []byte) {
	t.Helper()
	want, wantErr := marshalDecoded(raw)
	for _, recode := range []func(dst, raw []byte) ([]byte, error){canon.AppendJSON, r.Append} {
		got, err := recode([]byte("prefix"), raw)
		if wantErr != nil {
			require.Error(t, err, "input %q", raw)
			continue
		}
		require.NoError(t, err, "input %q", raw)
		require.Equal(t, "prefix"+string(want), string(got), "input %q", raw)
	}
}

func TestAppendJSONIsMarshalOfDecode(t *testing.T) {
	var r canon.Recoder
	for _, s := range recodeSeeds {
		requireSameAsMarshal(t, &r, []byte(s))
	}
	raw, err := os.ReadFile("testdata/vectors.json")
	require.NoError(t, err)
	requireSameAsMarshal(t, &r, raw)
}

// PostgreSQL hands payloads back as jsonb's text, with its own key order and
// spaces: that is the input verification re-encodes.
func TestAppendJSONOfJsonbText(t *testing.T) {
	got, err := canon.AppendJSON(nil, []byte(`{"n": 12, "cost": 0.00001, "note": "a\"b", "status": "working", "tags": ["x", "y"]}`))
	require.NoError(t, err)
	require.Equal(t, `{"cost":1e-05,"n":12,"note":"a\"b","status":"working","tags":["x","y"]}`, string(got))
}

func FuzzAppendJSONIsMarshalOfDecode(f *testing.F) {
	for _, s := range recodeSeeds {
		f.Add(s)
	}
	var r canon.Recoder
	f.Fuzz(func(t *testing.T, s string) { requireSameAsMarshal(t, &r, []byte(s)) })
}

// writeStringBefore is canon's string encoder as it was before AppendString:
// the reference AppendString must keep matching.
func writeStringBefore(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20:
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

func TestAppendStringMatchesTheEncoderBefore(t *testing.T) {
	strs := []string{"", "plain", "é✓😀", "\uFFFD", "\x7f<>&\u2028", "trailing \xe2\x82", "\xff\xfe", "\xed\xa0\x80",
		"\xf4\x90\x80\x80", "a\"b\\c/d", strings.Repeat("long ", 200)}
	for c := range 0x20 {
		strs = append(strs, fmt.Sprintf("x%cy", c))
	}
	for _, s := range strs {
		var want bytes.Buffer
		writeStringBefore(&want, s)
		require.Equal(t, want.String(), string(canon.AppendString(nil, s)), "%q", s)
		require.Equal(t, want.String(), string(canon.AppendString([]byte{}, []byte(s))), "%q as bytes", s)
	}
}

// The fast path builds no maps, and a Recoder allocates nothing once it and
// dst have room: proof that the tests above compare the fast path, not the
// slow one, with Marshal.
func TestRecoderFastPathDoesNotAllocate(t *testing.T) {
	raw := []byte(`{"n": 1, "note": "heart\"beat", "tags": ["é", {"b": null, "a": true}], "status": "working"}`)
	dst := make([]byte, 0, 256)
	var r canon.Recoder
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := r.Append(dst, raw); err != nil {
			t.Fatal(err)
		}
	})
	require.Zero(t, allocs)
}
