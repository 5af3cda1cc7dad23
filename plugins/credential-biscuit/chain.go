package main

import (
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
)

// scopePair is a board scope "<action>@project:<project>".
type scopePair struct{ action, project string }

// blockPlan is what one ledger link becomes: one Biscuit block.
type blockPlan struct {
	linkID  string
	pairs   []scopePair      // the link's own scope
	limits  map[string]int64 // effective per-call limits, in millionths
	expires time.Time
	holder  string   // last block only: base64url agent key
	allowed []string // last block only: argument names a call may carry
}

// Arguments a call may carry without a limit: "project" is checked by the
// scope and task_id is free, as in the Tenuo export.
const (
	argProject = "project"
	argTaskID  = "task_id"
)

// note is the credential_note refusal for a chain that cannot be exported.
func note(format string, args ...any) error {
	return errs.E(errs.InvalidRequest, "no biscuit credential: "+format, args...)
}

// plan checks the chain and turns each link into a block plan: the scope
// pairs, the limits tightened by every ancestor (a link inherits the keys it
// does not set) and the expiry, the last one capped at now+TTL.
func plan(r credential.ExportRequest) ([]blockPlan, error) {
	if len(r.Chain) == 0 {
		return nil, note("the chain is empty")
	}
	if len(r.HolderKey) != 32 {
		return nil, note("the agent's key is not a 32-byte Ed25519 public key")
	}
	var bad []string
	for _, l := range r.Chain {
		for _, s := range l.Scope {
			if _, ok := parseScope(s); !ok {
				bad = append(bad, s)
			}
		}
	}
	if len(bad) > 0 {
		return nil, note("these scopes cannot be exported as Biscuit tokens: %s", strings.Join(bad, ", "))
	}
	out := make([]blockPlan, len(r.Chain))
	limits := map[string]float64{}
	for i, l := range r.Chain {
		if (i == 0) != (l.ParentID == "") || (i > 0 && l.ParentID != r.Chain[i-1].ID) {
			return nil, note("link %s does not follow its parent in the chain", l.ID)
		}
		if len(l.Scope) == 0 {
			return nil, note("link %s has an empty scope", l.ID)
		}
		for k, v := range l.Limits {
			if old, ok := limits[k]; !ok || v < old {
				limits[k] = v
			}
		}
		b := blockPlan{linkID: l.ID, expires: l.ExpiresAt.UTC().Truncate(time.Second), limits: map[string]int64{}}
		for _, s := range l.Scope {
			p, _ := parseScope(s)
			b.pairs = append(b.pairs, p)
		}
		for k, v := range limits {
			m, ok := micros(v)
			if !ok {
				return nil, note("limit %s of link %s is not a number Biscuit can carry", k, l.ID)
			}
			b.limits[k] = m
		}
		out[i] = b
	}
	last := &out[len(out)-1]
	if r.TTL > 0 {
		if c := r.Now.Add(r.TTL).UTC().Truncate(time.Second); last.expires.IsZero() || c.Before(last.expires) {
			last.expires = c
		}
	}
	for _, b := range out {
		if !b.expires.IsZero() && !b.expires.After(r.Now) {
			return nil, note("link %s has expired", b.linkID)
		}
	}
	if last.expires.IsZero() {
		return nil, note("link %s has no expiry and no TTL caps it", last.linkID)
	}
	last.holder = b64url(r.HolderKey)
	last.allowed = []string{argProject, argTaskID}
	for k := range last.limits {
		if !slices.Contains(last.allowed, k) {
			last.allowed = append(last.allowed, k)
		}
	}
	slices.Sort(last.allowed)
	return out, nil
}

// parseScope splits a board scope; wildcard actions ("*" anywhere) and
// opaque scopes are not exportable.
func parseScope(s string) (scopePair, bool) {
	action, project, ok := strings.Cut(s, "@project:")
	if !ok || action == "" || strings.ContainsAny(action, "@*") || strings.IndexFunc(action, isSpace) >= 0 || !validSlug(project) {
		return scopePair{}, false
	}
	return scopePair{action, project}, true
}

func validSlug(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0) {
			return false
		}
	}
	return p != ""
}

// isSpace matches the board's scope rules: Unicode white space plus the
// ASCII separators U+001C..U+001F.
func isSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// micros is v in millionths, rounded half away from zero; ok is false when
// it is not finite or does not fit an int64.
func micros(v float64) (int64, bool) {
	m := math.Round(v * 1e6)
	if math.IsNaN(m) || m >= math.MaxInt64 || m <= math.MinInt64 {
		return 0, false
	}
	return int64(m), true
}
