package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pactboard/pact/sdk/errs"
)

// secretPrefix marks a Standard Webhooks signing secret; the rest is base64.
const secretPrefix = "whsec_"

// newSecret returns a fresh signing secret: whsec_ and 32 random bytes in
// base64, the form Standard Webhooks libraries take as is.
func newSecret(rand io.Reader) (string, error) {
	key := make([]byte, 32)
	if _, err := io.ReadFull(rand, key); err != nil {
		return "", errs.Wrap(err, "generate a webhook secret")
	}
	return secretPrefix + base64.StdEncoding.EncodeToString(key), nil
}

// parseSecret returns the HMAC key inside a whsec_ secret. The spec asks for
// 24 to 64 bytes; a shorter key would be guessable, so it is refused
// (errs.InvalidRequest).
func parseSecret(secret string) ([]byte, error) {
	rest, ok := strings.CutPrefix(secret, secretPrefix)
	key, err := base64.StdEncoding.DecodeString(rest)
	if !ok || err != nil || len(key) < 24 || len(key) > 64 {
		return nil, errs.E(errs.InvalidRequest,
			"a webhook signing secret must be whsec_ followed by base64 of 24 to 64 bytes; leave it empty to have one generated")
	}
	return key, nil
}

// sign returns the webhook-signature header value: v1, and the base64
// HMAC-SHA256 of "id.timestamp.body" (Standard Webhooks, "Signature scheme").
func sign(key []byte, id string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.", id, strconv.FormatInt(timestamp, 10))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}
