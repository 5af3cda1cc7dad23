package seal_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/seal"
)

func seed(b byte) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat(string(rune(b)), 32)))
}

func box(t *testing.T, boardKeys string) *seal.Box {
	t.Helper()
	k, err := mandate.ParseKeyring(boardKeys, "")
	require.NoError(t, err)
	return seal.New(k)
}

const place = "notify_destinations.secret/acme"

func TestSealOpensOnlyForItsPlace(t *testing.T) {
	b := box(t, "k1="+seed('a'))
	sealed, err := b.Seal("whsec_abc", place)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(sealed, seal.Prefix+"k1:"))
	require.NotContains(t, sealed, "whsec_abc")
	again, err := b.Seal("whsec_abc", place)
	require.NoError(t, err)
	require.NotEqual(t, sealed, again, "a fresh nonce each time")

	plain, err := b.Open(sealed, place)
	require.NoError(t, err)
	require.Equal(t, "whsec_abc", plain)

	_, err = b.Open(sealed, "notify_destinations.secret/other-org")
	require.ErrorContains(t, err, "does not open", "a value copied to another organization does not open")
	raw := []byte(sealed)
	raw[len(raw)-3] ^= 0x01
	_, err = b.Open(string(raw), place)
	require.Error(t, err, "an altered value does not open")
	_, err = b.Open(seal.Prefix+"k1:!!", place)
	require.ErrorContains(t, err, "malformed")
}

func TestValuesFromBeforeSealingPassThroughAndAreStale(t *testing.T) {
	b := box(t, "k1="+seed('a'))
	plain, err := b.Open("https://hooks.slack.com/services/T/B/x", place)
	require.NoError(t, err)
	require.Equal(t, "https://hooks.slack.com/services/T/B/x", plain)
	require.True(t, b.Stale("https://hooks.slack.com/services/T/B/x"))
	sealed, err := b.Seal("x", place)
	require.NoError(t, err)
	require.False(t, b.Stale(sealed))
}

// Rotating the keyring: what the old key sealed still opens while the old
// key is in the keyring, and is stale; once the key is gone it cannot open
// and says so.
func TestRotation(t *testing.T) {
	old := box(t, "k1="+seed('a'))
	sealed, err := old.Seal("s3cret", place)
	require.NoError(t, err)

	rotated := box(t, "k2="+seed('b')+",k1="+seed('a'))
	plain, err := rotated.Open(sealed, place)
	require.NoError(t, err)
	require.Equal(t, "s3cret", plain)
	require.True(t, rotated.Stale(sealed))

	dropped := box(t, "k2="+seed('b'))
	_, err = dropped.Open(sealed, place)
	require.ErrorIs(t, err, seal.ErrUnknownKey)
	require.ErrorContains(t, err, "enter it again")
}

// The shortest sealed value is an empty one, nonce and tag alone: it opens.
// A byte shorter is malformed, said as such, not taken for an altered one.
func TestTheShortestSealedValueOpensAndShorterIsMalformed(t *testing.T) {
	b := box(t, "k1="+seed('a'))
	sealed, err := b.Seal("", place)
	require.NoError(t, err)
	plain, err := b.Open(sealed, place)
	require.NoError(t, err)
	require.Equal(t, "", plain)

	kid, enc, _ := strings.Cut(strings.TrimPrefix(sealed, seal.Prefix), ":")
	raw, err := base64.RawURLEncoding.DecodeString(enc)
	require.NoError(t, err)
	short := seal.Prefix + kid + ":" + base64.RawURLEncoding.EncodeToString(raw[:len(raw)-1])
	_, err = b.Open(short, place)
	require.ErrorContains(t, err, "malformed")
	require.NotContains(t, err.Error(), "does not open")
}

// Reseal refuses what does not open, and seals nothing then.
func TestResealRefusesWhatDoesNotOpen(t *testing.T) {
	b := box(t, "k1="+seed('a'))
	sealed, err := b.Seal("whsec_abc", place)
	require.NoError(t, err)
	again, err := b.Reseal(sealed, place)
	require.NoError(t, err)
	require.NotEqual(t, sealed, again)
	out, err := b.Reseal(sealed, "notify_destinations.secret/other-org")
	require.ErrorContains(t, err, "does not open")
	require.Empty(t, out)
}
