package main

import (
	"crypto/ed25519"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/plugintest"
)

func TestRevocationListDocument(t *testing.T) {
	key, pub := testKey("board")
	p := plugintest.Credential(t, New())
	l, err := p.RevocationList(t.Context(), credential.RevocationRequest{Revoked: []string{"0aff", "12"}, Version: 7, Now: t0, Key: key})
	require.NoError(t, err)
	require.Equal(t, "application/json", l.ContentType)

	var doc map[string]string
	require.NoError(t, json.Unmarshal(l.Body, &doc))
	require.Equal(t, `{"format":"biscuit","issued_at":"2026-11-01T12:00:00Z","revoked":["0aff","12"],"version":7}`, doc["payload"])
	require.Regexp(t, `^ed25519:kid-board:[A-Za-z0-9_-]{86}$`, doc["signature"])
	require.Regexp(t, `^\{"payload":"\{\\"format\\":.*\}","signature":"ed25519:kid-board:[^"]+"\}$`, string(l.Body))

	keys := map[string]ed25519.PublicKey{"kid-board": pub}
	got, err := VerifyRevocationList(l.Body, keys)
	require.NoError(t, err)
	require.Equal(t, &RevocationPayload{Format: "biscuit", IssuedAt: "2026-11-01T12:00:00Z", Revoked: []string{"0aff", "12"}, Version: 7}, got)

	_, other := testKey("other")
	_, err = VerifyRevocationList(l.Body, map[string]ed25519.PublicKey{"kid-board": other})
	require.ErrorContains(t, err, "bad signature")
	_, err = VerifyRevocationList(l.Body, map[string]ed25519.PublicKey{"kid-x": pub})
	require.ErrorContains(t, err, "unknown key")
	doc["payload"] = `{"format":"biscuit","issued_at":"2026-11-01T12:00:00Z","revoked":[],"version":7}`
	forged, _ := json.Marshal(doc)
	_, err = VerifyRevocationList(forged, keys)
	require.ErrorContains(t, err, "bad signature")
}

func TestRevocationListEmptyAndBadInput(t *testing.T) {
	key, _ := testKey("board")
	l, err := New().RevocationList(t.Context(), credential.RevocationRequest{Now: t0, Key: key})
	require.NoError(t, err)
	require.Contains(t, string(l.Body), `\"revoked\":[],\"version\":0`)

	for name, r := range map[string]credential.RevocationRequest{
		"not hex":   {Revoked: []string{"xyz"}, Key: key},
		"uppercase": {Revoked: []string{"0AFF"}, Key: key},
		"no kid":    {Key: credential.SigningKey{Seed: key.Seed}},
		"short":     {Key: credential.SigningKey{Kid: "k", Seed: key.Seed[:3]}},
	} {
		_, err := New().RevocationList(t.Context(), r)
		require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), name)
	}
}
