package main

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/biscuit-auth/biscuit-go/v2"
	"github.com/biscuit-auth/biscuit-go/v2/datalog"
)

// Call is one tool call a verifier authorizes.
type Call struct {
	Tool, Project string
	Args          map[string]any // besides "project": numbers, strings, booleans
	Now           time.Time
}

// ParseToken decodes a base64url token (padded or not) and checks its
// signatures against the trusted board key its root_key_id names, falling
// back to every trusted key. It returns the token and an authorizer for it.
func ParseToken(token string, roots []ed25519.PublicKey) (*biscuit.Biscuit, biscuit.Authorizer, error) {
	raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(strings.TrimPrefix(token, "biscuit:"), "="))
	if err != nil {
		return nil, nil, fmt.Errorf("biscuit: not base64url: %w", err)
	}
	b, err := biscuit.Unmarshal(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("biscuit: %w", err)
	}
	ordered := roots
	if id, ok := rootKeyIDOf(raw); ok {
		ordered = nil
		for _, k := range roots {
			if RootKeyID(k) == id {
				ordered = append(ordered, k)
			}
		}
	}
	for _, k := range ordered {
		if a, err := authorizerOf(b, k); err == nil {
			return b, a, nil
		}
	}
	return nil, nil, errors.New("biscuit: not signed by a trusted key")
}

func authorizerOf(b *biscuit.Biscuit, k ed25519.PublicKey) (a biscuit.Authorizer, err error) {
	defer func() { // biscuit-go v2.2.0 dereferences fields of malformed tokens
		if r := recover(); r != nil {
			a, err = nil, fmt.Errorf("biscuit: malformed token: %v", r)
		}
	}()
	return b.Authorizer(k, biscuit.WithWorldOptions(datalog.WithMaxDuration(50*time.Millisecond)))
}

// AuthorizerFor adds a call's facts and the board's policies to a:
// tool(t), project(p), time(now), arg(k, v) per argument (numbers in
// millionths, the rest as strings), arg_names({…, "project"}), then
// allow if tool($t), project($p), right($p, $t); deny if true.
func AuthorizerFor(a biscuit.Authorizer, c Call) error {
	a.AddFact(fact("tool", biscuit.String(c.Tool)))
	a.AddFact(fact("project", biscuit.String(c.Project)))
	a.AddFact(fact("time", biscuit.Date(c.Now.UTC().Truncate(time.Second))))
	names := []string{argProject}
	for _, k := range sortedKeys(c.Args) {
		if k == argProject {
			continue
		}
		t, err := argTerm(c.Args[k])
		if err != nil {
			return fmt.Errorf("argument %s: %w", k, err)
		}
		a.AddFact(fact("arg", biscuit.String(k), t))
		names = append(names, k)
	}
	a.AddFact(fact("arg_names", strSet(names)))
	a.AddPolicy(biscuit.Policy{Kind: biscuit.PolicyKindAllow, Queries: []biscuit.Rule{{
		Head: pred("allow"),
		Body: []biscuit.Predicate{
			pred("tool", biscuit.Variable("t")), pred("project", biscuit.Variable("p")),
			pred("right", biscuit.Variable("p"), biscuit.Variable("t")),
		},
	}}})
	a.AddPolicy(biscuit.DefaultDenyPolicy)
	return nil
}

func argTerm(v any) (biscuit.Term, error) {
	switch x := v.(type) {
	case string:
		return biscuit.String(x), nil
	case bool:
		return biscuit.String(fmt.Sprint(x)), nil
	case int:
		return numTerm(float64(x))
	case int64:
		return numTerm(float64(x))
	case float64:
		return numTerm(x)
	}
	return nil, fmt.Errorf("unsupported type %T", v)
}

func numTerm(f float64) (biscuit.Term, error) {
	m, ok := micros(f)
	if !ok || math.IsInf(f, 0) {
		return nil, errors.New("number out of range")
	}
	return biscuit.Integer(m), nil
}

// Authorize is the whole offline check: signatures against the trusted
// board keys, no revoked id (hex) among the token's, then the Datalog.
func Authorize(token string, roots []ed25519.PublicKey, revoked []string, c Call) error {
	b, a, err := ParseToken(token, roots)
	if err != nil {
		return err
	}
	gone := make(map[string]bool, len(revoked))
	for _, id := range revoked {
		gone[strings.ToLower(id)] = true
	}
	for _, id := range b.RevocationIds() {
		if h := hex.EncodeToString(id); gone[h] {
			return fmt.Errorf("biscuit: revocation id %s is revoked", h)
		}
	}
	if err := AuthorizerFor(a, c); err != nil {
		return err
	}
	return a.Authorize()
}
