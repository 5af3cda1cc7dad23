package kernel

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/canon"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// The rule of SEC-001 number by number: doubles written short, whole values
// within ±2^53; numbers inside strings are text and never checked.
func TestArgNumbersCanonicalJSONCarriesFaithfully(t *testing.T) {
	accepted := []string{
		`0`, `-0`, `7`, `-7`, `9007199254740992`, `-9007199254740992`, `0.5`, `-2.50`, `1e15`, `1.5e-300`,
		`0.30000000000000004`, `0.10000000000000001`, `100000.0`, `9007199254740992.0`, `1E2`, `0e999999`,
		`"` + strings.Repeat("9", 1000) + `"`, `"\"1e999"`, `"\\" `,
	}
	for _, n := range accepted {
		args := `{"a":[` + n + `],"b":{"c":` + n + `}}`
		require.NoError(t, checkArgNumbers([]byte(args)), n)
		_, err := canon.AppendJSON(nil, []byte(args))
		require.NoError(t, err, n)
	}
	refused := []string{
		`9007199254740993`, `-9007199254740993`, `99999999999999999999`, `1e16`, `-1e20`, `1.5e300`,
		`1e309`, `-1e400`, `1e-400`, `0.` + strings.Repeat("0", 40) + `1`, strings.Repeat("9", 1<<20),
	}
	for _, n := range refused {
		err := checkArgNumbers([]byte(`{"s":"1","n":` + n + `}`))
		e, ok := errs.As(err)
		require.True(t, ok, "%.40s", n)
		require.Equal(t, errs.InvalidRequest, e.Code)
		require.Less(t, len(e.Message), 400, "the message never repeats a long number")
	}
}

// A refusal's entry keeps arguments whole up to maxLoggedRefusedArgs, and
// beyond them, or when they are not JSON, their digest, size and head cut on
// a character boundary.
func TestRefusedArgumentsAreLoggedBounded(t *testing.T) {
	refusal := errs.E(errs.ScopeExceeded, "no")
	small := json.RawMessage(`{"a":1}`)
	e := ledger.Entry{Payload: small}
	boundRefused(&e, refusal)
	require.Equal(t, small, e.Payload)

	big := json.RawMessage(`{"ab":"` + strings.Repeat("é", maxLoggedRefusedArgs) + `"}`)
	e = ledger.Entry{Payload: big}
	boundRefused(&e, nil)
	require.Equal(t, big, e.Payload, "a call that succeeds is logged whole")
	boundRefused(&e, refusal)
	d := e.Payload.(map[string]any)
	require.Equal(t, len(big), d["bytes"])
	require.Regexp(t, `^sha256:[0-9a-f]{64}$`, d["digest"])
	head := d["head"].(string)
	require.Equal(t, 255, len(head), "the 256th byte would split an é")
	require.True(t, strings.HasPrefix(string(big), head))
}

// FuzzArgNumbers: arguments the number check accepts read alike as the
// pipeline's doubles and as the log's canonical JSON; those it refuses are
// refused as invalid_request with a short message.
func FuzzArgNumbers(f *testing.F) {
	for _, seed := range []string{`{"n":1}`, `{"n":9007199254740993}`, `{"n":[1e16,0.5,-0]}`,
		`{"s":"\"1e999","n":1.5e-300}`, `{"n":1e-400}`, `{"n":0.10000000000000001}`, `[1E2, 100000.0]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, args []byte) {
		if !json.Valid(args) {
			return
		}
		if err := checkArgNumbers(args); err != nil {
			if e, ok := errs.As(err); !ok || e.Code != errs.InvalidRequest || len(e.Message) > 400 {
				t.Fatalf("refusal %v", err)
			}
			return
		}
		logged, err := canon.AppendJSON(nil, args)
		if err != nil {
			t.Fatalf("accepted %q, which canonical JSON refuses: %v", args, err)
		}
		var doubles any
		if err := json.Unmarshal(args, &doubles); err != nil {
			t.Fatalf("accepted %q, which does not decode into doubles: %v", args, err)
		}
		read, err := canon.Marshal(doubles)
		if err != nil || string(read) != string(logged) {
			t.Fatalf("%q: the log writes %s, the doubles read %s (%v)", args, logged, read, err)
		}
	})
}

// Every number is checked, not only the first of a run: the scan resumes
// right after each number it read. 9e-400 rounds to zero though its
// mantissa, a 9, is not zero.
func TestEveryNumberOfAnArrayIsChecked(t *testing.T) {
	for _, args := range []string{`[1,1e400]`, `{"a":1,"b":1e400}`, `[0,0,9007199254740993]`, `[9e-400]`} {
		require.Error(t, checkArgNumbers([]byte(args)), args)
	}
}

// The length bounds are inclusive: a literal of maxNumberLength characters
// is read, one longer refused; a refused literal of shownNumberLength
// characters is shown whole, a longer one cut with "…".
func TestNumberLengthBoundsAreInclusive(t *testing.T) {
	longest := "0." + strings.Repeat("0", maxNumberLength-3) + "1"
	require.Len(t, longest, maxNumberLength)
	require.NoError(t, checkArgNumbers([]byte(`[`+longest+`]`)))
	require.Error(t, checkArgNumbers([]byte(`[`+longest+`0]`)))

	shown := "1" + strings.Repeat("0", shownNumberLength-1) // 1e23: whole, beyond 2^53
	err := checkArgNumbers([]byte(`[` + shown + `]`))
	require.Contains(t, err.Error(), "the number "+shown+" (24 characters)")
	err = checkArgNumbers([]byte(`[` + shown + `0]`))
	require.Contains(t, err.Error(), "the number "+shown[:shownNumberLength]+"… (25 characters)")
}

// Arguments of exactly maxLoggedRefusedArgs bytes are logged whole; the head
// of a digest is cut only where the 256-byte limit splits a character, never
// inside arguments shorter than the limit (not JSON, digested whatever
// their size).
func TestRefusedArgumentsBoundsAndHeads(t *testing.T) {
	refusal := errs.E(errs.ScopeExceeded, "no")
	exact := json.RawMessage(`"` + strings.Repeat("x", maxLoggedRefusedArgs-2) + `"`)
	e := ledger.Entry{Payload: exact}
	boundRefused(&e, refusal)
	require.Equal(t, exact, e.Payload)
	over := json.RawMessage(`"` + strings.Repeat("x", maxLoggedRefusedArgs-1) + `"`)
	e = ledger.Entry{Payload: over}
	boundRefused(&e, refusal)
	require.IsType(t, map[string]any{}, e.Payload)

	euro := strings.Repeat("€", 200) // three bytes each
	require.Len(t, argsDigest([]byte(`{"ab":"` + euro))["head"], 256, "byte 256 ends a €")
	require.Len(t, argsDigest([]byte(`{"abc":"` + euro))["head"], 254, "bytes 255-256 start a €")
	short := "x\xe2\x82"
	require.Equal(t, short, argsDigest([]byte(short))["head"], "no limit split it")
}
