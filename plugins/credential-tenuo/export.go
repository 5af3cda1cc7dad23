package main

import (
	"context"
	"crypto/ed25519"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/pactboard/pact/sdk/credential"
	"github.com/pactboard/pact/sdk/errs"
	"github.com/pactboard/pact/sdk/tenuo"
)

// Lifetimes (seed README "Exported credentials (Tenuo)", docs/specs/behavior.md §12.1):
// a warrant lives until its link expires, at most Tenuo's 90 days; the
// leaf is further capped by the board's TTL, never below a minute.
const (
	maxWarrantTTL = 90 * 24 * time.Hour
	minLeafTTL    = time.Minute
	defaultTTL    = 24 * time.Hour
	rootMaxDepth  = 64 // Tenuo's builder default and ceiling
)

// note is the credential_note refusal: the board shows its message.
func note(format string, args ...any) error {
	return errs.E(errs.InvalidRequest, "no tenuo credential: "+format, args...)
}

// Export mints one board-held warrant per ledger link and a leaf held by
// the agent's key, each signed by the board (it never holds agent keys).
func (t *Tenuo) Export(_ context.Context, r credential.ExportRequest) (*credential.Exported, error) {
	if len(r.Chain) == 0 {
		return nil, note("the chain is empty")
	}
	if len(r.Chain) >= rootMaxDepth {
		return nil, note("the chain has %d links; Tenuo allows %d", len(r.Chain), rootMaxDepth-1)
	}
	if len(r.HolderKey) != ed25519.PublicKeySize {
		return nil, note("the agent's key is not a 32-byte Ed25519 public key")
	}
	if len(r.Key.Seed) != ed25519.SeedSize {
		return nil, errs.E(errs.InvalidRequest, "the board's signing seed is not 32 bytes")
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
		return nil, note("these scopes cannot be exported as Tenuo warrants: %s", strings.Join(bad, ", "))
	}
	now := r.Now.UTC().Truncate(time.Second)
	board := ed25519.NewKeyFromSeed(r.Key.Seed).Public().(ed25519.PublicKey)
	keys := limitKeys(r.Chain)
	limits := map[string]float64{}
	out := &credential.Exported{Format: formatName, Field: fieldName, LinkIDs: map[string][]string{}}
	var stack []*tenuo.Signed
	for i, l := range r.Chain {
		if (i == 0) != (l.ParentID == "") || (i > 0 && l.ParentID != r.Chain[i-1].ID) {
			return nil, note("link %s does not follow its parent in the chain", l.ID)
		}
		if len(l.Scope) == 0 {
			return nil, note("link %s has an empty scope", l.ID)
		}
		if !l.ExpiresAt.IsZero() && !l.ExpiresAt.After(now) {
			return nil, note("link %s has expired", l.ID)
		}
		for k, v := range l.Limits {
			if k == argProject || k == argTaskID || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, note("limit %s of link %s has no Tenuo equivalent", k, l.ID)
			}
			if old, ok := limits[k]; !ok || v < old {
				limits[k] = v
			}
		}
		tools := toolsFor(l.Scope, limits, keys)
		expires := until(now, l.ExpiresAt, maxWarrantTTL)
		s, err := t.mint(stack, tools, board, board, now, expires, rootMaxDepth, r.Key.Seed)
		if err != nil {
			return nil, err
		}
		stack = append(stack, s)
		out.LinkIDs[l.ID] = append(out.LinkIDs[l.ID], s.Payload.IDString())
	}
	last := r.Chain[len(r.Chain)-1]
	parent := stack[len(stack)-1].Payload
	ttl := r.TTL
	if ttl <= 0 {
		ttl = defaultTTL
	}
	ttl = max(ttl, minLeafTTL)
	leafExp := min(parent.ExpiresAt, uint64(now.Add(ttl).Unix()))
	depth := parent.Depth + 1
	maxDepth := min(parent.MaxDepth, depth+uint64(max(last.DelegationsLeft, 0))) // terminal when none are left
	leaf, err := t.mint(stack, parent.Tools, r.HolderKey, board, now, leafExp, maxDepth, r.Key.Seed)
	if err != nil {
		return nil, err
	}
	stack = append(stack, leaf)
	out.LinkIDs[last.ID] = append(out.LinkIDs[last.ID], leaf.Payload.IDString())
	b, err := tenuo.EncodeStack(stack)
	if err != nil {
		return nil, err
	}
	out.Credential = tenuo.Text(b)
	out.ExternalID = leaf.Payload.IDString()
	out.ExpiresAt = time.Unix(int64(leafExp), 0).UTC()
	return out, nil
}

// mint signs the next warrant of the stack: the root when stack is empty,
// else a child of its last warrant, never outliving it.
func (t *Tenuo) mint(stack []*tenuo.Signed, tools map[string]tenuo.ConstraintSet, holder, board ed25519.PublicKey,
	now time.Time, expires, maxDepth uint64, seed []byte) (*tenuo.Signed, error) {
	id, err := t.newID()
	if err != nil {
		return nil, err
	}
	p := &tenuo.Payload{ID: id, Type: tenuo.Execution, Tools: tools, Holder: holder, Issuer: board,
		IssuedAt: uint64(now.Unix()), ExpiresAt: expires, MaxDepth: maxDepth}
	if n := len(stack); n > 0 {
		parent := stack[n-1]
		p.ParentHash = parent.Hash()
		p.Depth = parent.Payload.Depth + 1
		p.ExpiresAt = min(p.ExpiresAt, parent.Payload.ExpiresAt)
		p.MaxDepth = min(p.MaxDepth, parent.Payload.MaxDepth)
	}
	return tenuo.Sign(p, seed)
}

// until is the expiry of a warrant for a link expiring at exp: at least a
// second after now, at most cap after it (and cap after it when the link
// has no expiry).
func until(now, exp time.Time, cap time.Duration) uint64 {
	d := exp.Sub(now)
	if exp.IsZero() || d > cap {
		d = cap
	}
	return uint64(now.Add(max(d, time.Second)).Unix())
}

// limitKeys is every limit key anywhere in the chain. Tenuo refuses a
// child that constrains an argument its parent left out, so every warrant
// names them all: keys a link does not limit yet get an unbounded Range,
// which only demands a number and narrows to the ceiling later.
func limitKeys(chain []credential.Link) []string {
	set := map[string]bool{}
	for _, l := range chain {
		for k := range l.Limits {
			if k != argProject && k != argTaskID {
				set[k] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// toolsFor maps a link's scope: `action@project:P` becomes tool action
// with project Exact(P) (OneOf of the sorted projects when several),
// task_id free, and every effective limit a per-call ceiling.
func toolsFor(scope []string, limits map[string]float64, keys []string) map[string]tenuo.ConstraintSet {
	projects := map[string][]string{}
	for _, s := range scope {
		p, _ := parseScope(s)
		if !contains(projects[p.action], p.project) {
			projects[p.action] = append(projects[p.action], p.project)
		}
	}
	tools := make(map[string]tenuo.ConstraintSet, len(projects))
	for action, ps := range projects {
		sort.Strings(ps)
		cs := map[string]tenuo.Constraint{argTaskID: tenuo.Wildcard()}
		if len(ps) == 1 {
			cs[argProject] = tenuo.Exact(ps[0])
		} else {
			vs := make([]any, len(ps))
			for i, p := range ps {
				vs[i] = p
			}
			cs[argProject] = tenuo.OneOf(vs...)
		}
		for _, k := range keys {
			if v, ok := limits[k]; ok {
				cs[k] = tenuo.AtMost(v)
			} else {
				cs[k] = tenuo.Constraint{Type: tenuo.TypeRange, Value: tenuo.Range{}}
			}
		}
		tools[action] = tenuo.ConstraintSet{Constraints: cs}
	}
	return tools
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
