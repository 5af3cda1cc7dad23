package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/tenuo"
)

// maxImportDelegations is how often an imported root may delegate on the
// board (seed README "Imported credentials (Tenuo)").
const maxImportDelegations = 2

// Import verifies an outside warrant stack against the live trusted roots
// and maps its leaf to a root mandate (docs/specs/behavior.md §12.5). Every constraint
// the ledger cannot express is refused rather than dropped, since dropping
// one would widen what the issuer granted.
func (*Tenuo) Import(_ context.Context, r credential.ImportRequest) (*credential.ImportedLink, error) {
	raw, err := tenuo.FromText(strings.TrimSpace(r.Credential))
	if err != nil {
		// Tenuo's authorizer also takes standard base64.
		if raw, err = base64.StdEncoding.DecodeString(strings.TrimSpace(r.Credential)); err != nil {
			return nil, errs.E(errs.InvalidRequest, "not a Tenuo warrant stack")
		}
	}
	stack, err := tenuo.DecodeStack(raw)
	if err != nil {
		return nil, errs.E(errs.InvalidRequest, "not a Tenuo warrant stack")
	}
	var roots []ed25519.PublicKey
	for _, k := range r.TrustedRoots {
		if len(k) == ed25519.PublicKeySize {
			roots = append(roots, ed25519.PublicKey(k))
		}
	}
	rootKey := stack[0].Payload.Issuer
	if !trusted(roots, rootKey) {
		return nil, errs.E(errs.ChainBroken, "the warrant stack is rooted at %s, which is not a trusted root", b64(rootKey))
	}
	now := r.Now
	if now.IsZero() {
		now = time.Now()
	}
	for _, s := range stack {
		if uint64(now.Unix()) >= s.Payload.ExpiresAt {
			return nil, errs.E(errs.ChainBroken, "warrant %s in the stack has expired", s.Payload.IDString())
		}
	}
	leafS, err := tenuo.VerifyStack(stack, tenuo.VerifyOptions{TrustedRoots: roots, Now: now})
	if err != nil {
		return nil, errs.E(errs.ChainBroken, "the warrant stack does not verify: %v", err)
	}
	leaf := leafS.Payload
	switch {
	case leaf.Type != tenuo.Execution:
		return nil, errs.E(errs.InvalidRequest, "the leaf warrant is not an execution warrant")
	case len(leaf.RequiredApprovers) > 0 || len(leaf.Extensions) > 0:
		return nil, errs.E(errs.InvalidRequest, "the leaf warrant requires outside approvals or carries extensions, which have no ledger equivalent")
	case !trusted(holderKeys(r.HolderKeys), leaf.Holder):
		return nil, errs.E(errs.InvalidRequest, "the credential is held by %s, not a live key of the agent", b64(leaf.Holder))
	}
	scope, limits, err := toLedger(leaf)
	if err != nil {
		return nil, err
	}
	dels := 0
	if leaf.Depth < leaf.MaxDepth {
		dels = int(min(maxImportDelegations, leaf.MaxDepth-leaf.Depth))
	}
	return &credential.ImportedLink{Scope: scope, Limits: limits, ExpiresAt: time.Unix(int64(leaf.ExpiresAt), 0).UTC(),
		ExternalID: leaf.IDString(), IssuerPrincipal: []byte(rootKey), MaxDelegations: dels}, nil
}

// toLedger maps the leaf's tools to scopes and limits: project Exact or
// OneOf of strings, task_id Wildcard, every other argument Range with an
// inclusive max and no min (the tightest across tools wins).
func toLedger(leaf *tenuo.Payload) ([]string, map[string]float64, error) {
	if len(leaf.Tools) == 0 {
		return nil, nil, errs.E(errs.InvalidRequest, "the leaf warrant grants no tools")
	}
	var scope []string
	limits := map[string]float64{}
	for tool, cs := range leaf.Tools {
		if strings.Contains(tool, "*") {
			return nil, nil, errs.E(errs.InvalidRequest, "tool %q is a wildcard", tool)
		}
		if cs.AllowUnknown {
			return nil, nil, errs.E(errs.InvalidRequest, "tool %q allows unknown arguments, which has no ledger equivalent", tool)
		}
		pc, ok := cs.Constraints[argProject]
		if !ok {
			return nil, nil, errs.E(errs.InvalidRequest, "tool %q has no project constraint", tool)
		}
		projects, ok := projectsOf(pc)
		if !ok {
			return nil, nil, errs.E(errs.InvalidRequest, "tool %q: project must be Exact or OneOf", tool)
		}
		for _, p := range projects {
			s := tool + "@project:" + p
			if _, ok := parseScope(s); !ok {
				return nil, nil, errs.E(errs.InvalidRequest, "tool %q for project %q is not a valid board scope", tool, p)
			}
			if !contains(scope, s) {
				scope = append(scope, s)
			}
		}
		for arg, c := range cs.Constraints {
			switch {
			case arg == argProject:
			case arg == argTaskID && c.Type == tenuo.TypeWildcard:
			default:
				v, ok := ceiling(c)
				if !ok || arg == argTaskID {
					return nil, nil, errs.E(errs.InvalidRequest,
						"tool %q argument %q has no ledger equivalent (only Range.max_value limits)", tool, arg)
				}
				if old, seen := limits[arg]; !seen || v < old {
					limits[arg] = v
				}
			}
		}
	}
	sort.Strings(scope)
	return scope, limits, nil
}

func projectsOf(c tenuo.Constraint) ([]string, bool) {
	switch c.Type {
	case tenuo.TypeExact:
		s, ok := c.Value.(string)
		return []string{s}, ok
	case tenuo.TypeOneOf:
		vs, _ := c.Value.([]any)
		out := make([]string, 0, len(vs))
		for _, v := range vs {
			s, ok := v.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, len(out) > 0
	}
	return nil, false
}

// ceiling reads Range.max_value(v): an inclusive finite max and no min.
func ceiling(c tenuo.Constraint) (float64, bool) {
	r, ok := c.Value.(tenuo.Range)
	if c.Type != tenuo.TypeRange || !ok || r.Min != nil || r.Max == nil || !r.MaxInclusive ||
		math.IsNaN(*r.Max) || math.IsInf(*r.Max, 0) {
		return 0, false
	}
	return *r.Max, true
}

func holderKeys(ks [][]byte) []ed25519.PublicKey {
	out := make([]ed25519.PublicKey, 0, len(ks))
	for _, k := range ks {
		if len(k) == ed25519.PublicKeySize {
			out = append(out, ed25519.PublicKey(k))
		}
	}
	return out
}

func trusted(keys []ed25519.PublicKey, k ed25519.PublicKey) bool {
	for _, t := range keys {
		if t.Equal(k) {
			return true
		}
	}
	return false
}

func b64(k []byte) string { return base64.RawURLEncoding.EncodeToString(k) }
