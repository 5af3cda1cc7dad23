package mandate_test

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/mandate"
)

// seed returns a fresh base64url seed for PACT_BOARD_KEYS.
func seed(t *testing.T) string {
	t.Helper()
	entry, err := mandate.NewKeyEntry(t0, rand.Reader)
	require.NoError(t, err)
	_, s, _ := strings.Cut(entry, "=")
	return s
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func TestParseKeyringRefusesBadSpecs(t *testing.T) {
	s := seed(t)
	for spec, msg := range map[string]string{
		"k1":                          "PACT_BOARD_KEYS entries look like kid=<base64url seed>; a kid has no ':'",
		"=" + s:                       "PACT_BOARD_KEYS entries look like kid=<base64url seed>; a kid has no ':'",
		"a:b=" + s:                    "PACT_BOARD_KEYS entries look like kid=<base64url seed>; a kid has no ':'",
		"k1=short":                    "PACT_BOARD_KEYS key k1 is not base64url", // 5 characters cannot be base64
		"k1=c2hvcnQ":                  "PACT_BOARD_KEYS key k1 must be a 32-byte seed",
		"k1=" + b64(make([]byte, 33)): "PACT_BOARD_KEYS key k1 must be a 32-byte seed",
		"k1=not*base64":               "PACT_BOARD_KEYS key k1 is not base64url",
		"k1=" + s + ",k1=" + s:        "PACT_BOARD_KEYS lists k1 twice",
		" , ":                         "PACT_BOARD_KEYS has no keys",
	} {
		_, err := mandate.ParseKeyring(spec, testSigningKey)
		require.EqualError(t, err, msg, spec)
	}
}

func TestParseKeyringNeedsALongSigningKeyWhenItUsesOne(t *testing.T) {
	short := strings.Repeat("x", 31)
	_, err := mandate.ParseKeyring("", short)
	require.EqualError(t, err, "PACT_SIGNING_KEY must be set to at least 32 characters")
	_, err = mandate.ParseKeyring("", "")
	require.Error(t, err)
	_, err = mandate.ParseKeyring("k1="+seed(t), short) // set, so it is used for HMAC
	require.Error(t, err)

	// With PACT_BOARD_KEYS and no signing key, legacy signatures never verify.
	k, err := mandate.ParseKeyring("k1="+seed(t), "")
	require.NoError(t, err)
	payload := []byte(`{"a":1}`)
	require.False(t, k.VerifySignature(payload, mandate.LegacyHMAC(nil, payload)))
	require.False(t, k.VerifySignature(payload, mandate.LegacyHMAC([]byte(testSigningKey), payload)))
	require.True(t, k.VerifySignature(payload, k.Sign(payload)))
}

func TestDerivedKeyComesFromTheSigningKey(t *testing.T) {
	k, err := mandate.ParseKeyring("", testSigningKey)
	require.NoError(t, err)
	require.Equal(t, "derived-1", k.ActiveKid())
	seed := sha256.Sum256([]byte("pact-board-ed25519/" + testSigningKey))
	pub := ed25519.NewKeyFromSeed(seed[:]).Public().(ed25519.PublicKey)
	require.Equal(t, mandate.JWKS{Keys: []mandate.JWK{{
		Kty: "OKP", Crv: "Ed25519", Kid: "derived-1", Use: "sig", Alg: "EdDSA", X: b64(pub),
	}}}, k.JWKS())

	// Anyone with the published key can check a signature.
	payload := []byte(`{"id":"x"}`)
	sig := k.Sign(payload)
	scheme, rest, _ := strings.Cut(sig, ":")
	kid, raw, _ := strings.Cut(rest, ":")
	require.Equal(t, "ed25519", scheme)
	require.Equal(t, "derived-1", kid)
	require.NotContains(t, raw, "=")
	sigBytes, err := base64.RawURLEncoding.DecodeString(raw)
	require.NoError(t, err)
	require.True(t, ed25519.Verify(pub, payload, sigBytes))
}

func TestKeyringRotation(t *testing.T) {
	old, next := seed(t), seed(t)
	k1, err := mandate.ParseKeyring("k1="+old, testSigningKey)
	require.NoError(t, err)
	rotated, err := mandate.ParseKeyring(" k2="+next+"== , k1="+old+" ,", testSigningKey) // padding and spaces are fine
	require.NoError(t, err)
	retired, err := mandate.ParseKeyring("k2="+next, testSigningKey)
	require.NoError(t, err)

	payload := []byte(`{"id":"m"}`)
	byK1 := k1.Sign(payload)
	require.True(t, strings.HasPrefix(byK1, "ed25519:k1:"))
	require.True(t, rotated.VerifySignature(payload, byK1), "the old key still verifies after the new one")
	require.True(t, strings.HasPrefix(rotated.Sign(payload), "ed25519:k2:"), "the first key signs")
	require.Equal(t, []string{"k2", "k1"}, rotated.Kids())
	require.Equal(t, "k2", rotated.JWKS().Keys[0].Kid)
	require.Equal(t, "k1", rotated.JWKS().Keys[1].Kid)
	require.False(t, retired.VerifySignature(payload, byK1), "an unknown kid fails")

	// A key outside the keyring under a known kid fails too.
	foreign, err := mandate.ParseKeyring("k1="+seed(t), testSigningKey)
	require.NoError(t, err)
	require.False(t, rotated.VerifySignature(payload, foreign.Sign(payload)))
	// So do tampered payloads and malformed signatures.
	require.False(t, rotated.VerifySignature([]byte(`{"id":"n"}`), byK1))
	for _, bad := range []string{"ed25519:k1", "ed25519:k1:!!", "ed25519:k1:" + b64([]byte("short")), "ed25519:k1:x:y", "ed25519::" + b64(make([]byte, 64))} {
		require.False(t, rotated.VerifySignature(payload, bad), bad)
	}
}

func TestLegacyHMACSignaturesVerify(t *testing.T) {
	k, err := mandate.ParseKeyring("k1="+seed(t), testSigningKey)
	require.NoError(t, err)
	payload := []byte(`{"id":"m"}`)
	legacy := mandate.LegacyHMAC([]byte(testSigningKey), payload)
	require.Len(t, legacy, 64)
	require.True(t, k.VerifySignature(payload, legacy))
	require.False(t, k.VerifySignature(payload, strings.ToUpper(legacy)), "lowercase hex only")
	require.False(t, k.VerifySignature([]byte(`{"id":"n"}`), legacy), "tampering breaks it")
	require.False(t, k.VerifySignature(payload, ""))
}

func TestNewKeyEntry(t *testing.T) {
	seedBytes := bytes.Repeat([]byte{7}, 32)
	entry, err := mandate.NewKeyEntry(time.Date(2026, 10, 2, 23, 30, 0, 0, time.FixedZone("x", -3600)), bytes.NewReader(seedBytes))
	require.NoError(t, err)
	require.Equal(t, "20261003="+b64(seedBytes), entry, "the date is taken in UTC")
	k, err := mandate.ParseKeyring(entry, "")
	require.NoError(t, err)
	require.Equal(t, "20261003", k.ActiveKid())

	_, err = mandate.NewKeyEntry(t0, bytes.NewReader(nil))
	require.Error(t, err)
}

func TestKeyringServesItsJWKS(t *testing.T) {
	k, err := mandate.ParseKeyring("k2="+seed(t)+",k1="+seed(t), testSigningKey)
	require.NoError(t, err)
	rec := httptest.NewRecorder()
	k.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/pact-keys.json", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "*", rec.Header().Get("Access-Control-Allow-Origin"))
	require.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var got mandate.JWKS
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	require.Equal(t, k.JWKS(), got)
	require.NotContains(t, rec.Body.String(), `"d"`, "never a private part")
	require.JSONEq(t, `{"keys":[`+
		`{"kty":"OKP","crv":"Ed25519","kid":"k2","use":"sig","alg":"EdDSA","x":"`+got.Keys[0].X+`"},`+
		`{"kty":"OKP","crv":"Ed25519","kid":"k1","use":"sig","alg":"EdDSA","x":"`+got.Keys[1].X+`"}]}`, rec.Body.String())

	rec = httptest.NewRecorder()
	k.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/.well-known/pact-keys.json", nil))
	require.Equal(t, http.StatusMethodNotAllowed, rec.Code)
}

// MinSigningKeyLen is the shortest signing key accepted, counted in
// characters: one of exactly that many starts the keyring, one fewer does not.
func TestSigningKeyOfExactlyTheMinimumLengthIsAccepted(t *testing.T) {
	_, err := mandate.ParseKeyring("", strings.Repeat("k", mandate.MinSigningKeyLen))
	require.NoError(t, err)
	_, err = mandate.ParseKeyring("", strings.Repeat("é", mandate.MinSigningKeyLen))
	require.NoError(t, err, "characters, not bytes")
	_, err = mandate.ParseKeyring("", strings.Repeat("k", mandate.MinSigningKeyLen-1))
	require.Error(t, err)
}
