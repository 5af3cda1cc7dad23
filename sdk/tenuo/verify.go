package tenuo

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"fmt"
	"time"
)

// ClockTolerance is Tenuo's default allowance for clock skew.
const ClockTolerance = 30 * time.Second

// VerifyOptions are what a verifier trusts and when it is.
type VerifyOptions struct {
	TrustedRoots []ed25519.PublicKey
	Now          time.Time
	// Revoked reports whether an id ("tnu_wrt_…") is on the revocation
	// list; nil means nothing is revoked.
	Revoked func(id string) bool
}

// VerifyStack checks a warrant stack link by link as Tenuo's
// verify_chain does (docs/specs/credential-formats.md §2.5) and returns the leaf. It
// trusts nothing in the stack itself: the root's issuer must be a trusted
// root, and every later link is checked against its parent.
func VerifyStack(stack []*Signed, o VerifyOptions) (*Signed, error) {
	if len(stack) == 0 {
		return nil, errors.New("tenuo: empty stack")
	}
	seen := map[[16]byte]bool{}
	for i, s := range stack {
		p := s.Payload
		if o.Revoked != nil && o.Revoked(p.IDString()) {
			return nil, fmt.Errorf("tenuo: link %d: warrant %s is revoked", i, p.IDString())
		}
		if seen[p.ID] {
			return nil, fmt.Errorf("tenuo: link %d: warrant id repeats", i)
		}
		seen[p.ID] = true
		if err := structural(p); err != nil {
			return nil, fmt.Errorf("tenuo: link %d: %w", i, err)
		}
		if !s.VerifySignature() {
			return nil, fmt.Errorf("tenuo: link %d: bad signature", i)
		}
		if uint64(o.Now.Add(-ClockTolerance).Unix()) >= p.ExpiresAt {
			return nil, fmt.Errorf("tenuo: link %d: expired", i)
		}
	}
	root := stack[0].Payload
	if root.ParentHash != nil || root.Depth != 0 {
		return nil, errors.New("tenuo: root has a parent")
	}
	trusted := false
	for _, k := range o.TrustedRoots {
		trusted = trusted || k.Equal(root.Issuer)
	}
	if !trusted {
		return nil, errors.New("tenuo: root issuer is not trusted")
	}
	for i := 1; i < len(stack); i++ {
		if err := link(stack[i-1], stack[i]); err != nil {
			return nil, fmt.Errorf("tenuo: link %d: %w", i, err)
		}
	}
	return stack[len(stack)-1], nil
}

func structural(p *Payload) error {
	switch {
	case p.ExpiresAt <= p.IssuedAt:
		return errors.New("expires_at not after issued_at")
	case p.Depth > p.MaxDepth:
		return errors.New("depth above max_depth")
	case p.Type == Execution && (p.IssuableTools != nil || p.MaxIssueDepth != nil):
		return errors.New("execution warrant with issuer fields")
	case p.Type == Issuer && len(p.Tools) > 0:
		return errors.New("issuer warrant with tools")
	case p.MaxIssueDepth != nil && *p.MaxIssueDepth > p.MaxDepth:
		return errors.New("max_issue_depth above max_depth")
	case p.MinApprovals != nil && (*p.MinApprovals < 1 || *p.MinApprovals > uint64(len(p.RequiredApprovers))):
		return errors.New("min_approvals out of range")
	}
	return nil
}

// link checks one parent → child step: the invariants I1–I5 and that the
// child only narrows the parent's authority.
func link(parent, child *Signed) error {
	pp, cp := parent.Payload, child.Payload
	switch {
	case !cp.Issuer.Equal(pp.Holder):
		return errors.New("child issuer is not the parent holder (I1)")
	case !bytes.Equal(cp.ParentHash, parent.Hash()):
		return errors.New("parent_hash does not match the parent (I5)")
	case cp.Depth != pp.Depth+1:
		return errors.New("depth is not parent depth + 1 (I2)")
	case cp.Depth > pp.MaxDepth || cp.MaxDepth > pp.MaxDepth:
		return errors.New("depth beyond the parent's max_depth (I2)")
	case cp.ExpiresAt > pp.ExpiresAt:
		return errors.New("expires after the parent (I3)")
	case clearance(cp) > clearance(pp):
		return errors.New("clearance rises")
	}
	switch {
	case pp.Type == Execution && cp.Type == Execution:
		for tool, cs := range cp.Tools {
			pcs, ok := pp.Tools[tool]
			if !ok {
				pcs, ok = pp.Tools["*"]
			}
			if !ok {
				return fmt.Errorf("tool %q not in the parent (I4)", tool)
			}
			if err := narrowsSet(pcs, cs); err != nil {
				return fmt.Errorf("tool %q: %w (I4)", tool, err)
			}
		}
	case pp.Type == Issuer && cp.Type == Execution:
		if cp.Holder.Equal(pp.Holder) || cp.Holder.Equal(pp.Issuer) {
			return errors.New("self-issuance")
		}
		for tool, cs := range cp.Tools {
			if !contains(pp.IssuableTools, tool) {
				return fmt.Errorf("tool %q not issuable", tool)
			}
			if pp.ConstraintBounds != nil {
				if err := narrowsSet(*pp.ConstraintBounds, cs); err != nil {
					return fmt.Errorf("tool %q: outside constraint bounds: %w", tool, err)
				}
			}
		}
	case pp.Type == Issuer && cp.Type == Issuer:
		for _, t := range cp.IssuableTools {
			if !contains(pp.IssuableTools, t) {
				return fmt.Errorf("issuable tool %q not in the parent", t)
			}
		}
		if pp.ConstraintBounds != nil {
			if cp.ConstraintBounds == nil {
				return errors.New("constraint bounds dropped")
			}
			if err := narrowsSet(*pp.ConstraintBounds, *cp.ConstraintBounds); err != nil {
				return err
			}
		}
	default:
		return errors.New("an execution warrant cannot mint an issuer warrant")
	}
	return nil
}

func clearance(p *Payload) uint64 {
	if p.Clearance == nil {
		return 0
	}
	return *p.Clearance
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
