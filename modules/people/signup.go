package people

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/seams"
	"github.com/pactboard/pact/sdk/errs"
)

// Sign-up refusals people read.
const (
	SignupClosedMessage = "sign-up is closed on this board; ask an owner of an organization to invite you"
	SignupBusyMessage   = "too many organizations were made in the last hour; try again later"
	NoVerifiedEmail     = "this sign-in has no verified email"
	AcceptTermsMessage  = "accept the terms to sign up"
)

// SignUpPolicy is the board's sign-up configuration (PACT_SIGNUP_ENABLED,
// PACT_SIGNUP_MAX_PER_HOUR).
type SignUpPolicy struct {
	Enabled bool
	// MaxPerHour opens the circuit breaker when this many organizations or
	// more were made by sign-up in the last hour; 0 refuses every sign-up.
	MaxPerHour int
}

// SignUpInput is a verified account asking for its own organization.
type SignUpInput struct {
	// Issuer and Subject name the account; VerifiedEmail is its email only
	// when the issuer vouched for it.
	Issuer, Subject, VerifiedEmail string
	OrgName, DisplayName           string
	AcceptTerms                    bool
	TermsVersion                   string
}

// SignedUp is the owner a sign-up made, and their organization.
type SignedUp struct {
	Human Human    `json:"human"`
	Org   OrgBrief `json:"org"`
}

// SignUp makes a new organization with the account as its owner (docs/specs/behavior.md
// §10.5): its id derived from the name, its own system chain, the terms
// recorded, the roles of role_templates, what the modules seed for a new
// organization (seams.OrgCreatedHook: the board's default approval
// rules), and org.created as its first log entry. Invitations play no
// part: an invited account joins only by accepting one (AcceptInvitation),
// and may make its own organization instead. Concurrent sign-ups of one
// account make one organization: they serialise on an advisory lock and
// the later ones find a person.
// Refusals: account_disabled, already_registered, signup_closed,
// invalid_request (no verified email, terms not accepted, a name or the
// terms version blank or too long), signup_busy. Only the refusals of an
// account that is a person are logged (in their organization): the others
// have no organization to log them in.
func (s *Service) SignUp(ctx context.Context, pol SignUpPolicy, in SignUpInput) (*SignedUp, error) {
	in.OrgName, in.DisplayName = strings.TrimSpace(in.OrgName), strings.TrimSpace(in.DisplayName)
	in.TermsVersion, in.VerifiedEmail = strings.TrimSpace(in.TermsVersion), strings.TrimSpace(in.VerifiedEmail)
	if in.Issuer == "" || in.Subject == "" {
		return nil, errs.E(errs.Unauthorized, "this sign-in names no account")
	}
	var out *SignedUp
	var known *identity.Person // the person the account is
	err := s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if err := lockAccount(ctx, tx, in.Issuer, in.Subject); err != nil {
			return err
		}
		p, err := s.ident.AccountPerson(ctx, tx, in.Issuer, in.Subject)
		if err != nil {
			return err
		}
		known = p
		switch {
		case p != nil && p.DisabledAt != nil:
			return identity.Disabled()
		case p != nil:
			return errs.E(errs.AlreadyRegistered, "this account is already %s of organization %s; sign in instead", p.ID, p.OrgID)
		case !pol.Enabled:
			return errs.E(errs.SignupClosed, SignupClosedMessage)
		case in.VerifiedEmail == "":
			return errs.E(errs.InvalidRequest, NoVerifiedEmail)
		}
		if err := validSignUp(in); err != nil {
			return err
		}
		recent, err := s.ident.SignUpsLastHour(ctx, tx)
		if err != nil {
			return err
		}
		if recent >= pol.MaxPerHour {
			return errs.E(errs.SignupBusy, SignupBusyMessage)
		}
		out, err = s.createOrg(ctx, tx, in)
		return err
	})
	if errs.IsRefusal(err) && known != nil {
		return nil, s.log.RecordRefusal(ctx, s.db, ledger.Entry{OrgID: known.OrgID, Actor: "human:" + known.ID,
			Action: "admin.signup", Payload: map[string]any{"human_id": known.ID, "issuer": in.Issuer}}, err)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// createOrg makes the organization and its owner, seeds it and logs
// org.created.
func (s *Service) createOrg(ctx context.Context, tx bun.Tx, in SignUpInput) (*SignedUp, error) {
	orgID, err := s.freeID(ctx, tx, s.ident.OrgExists, slug(in.OrgName, 30, "org"), 6, true)
	if err != nil {
		return nil, err
	}
	local, _, _ := strings.Cut(in.VerifiedEmail, "@")
	humanID, err := s.freeID(ctx, tx, s.ident.HumanExists, slug(local, 30, "owner"), 4, false)
	if err != nil {
		return nil, err
	}
	owner, err := s.ident.CreateOrg(ctx, tx, identity.NewOrg{ID: orgID, Name: in.OrgName, TermsVersion: in.TermsVersion,
		OwnerID: humanID, OwnerName: in.DisplayName, Email: in.VerifiedEmail, Issuer: in.Issuer, Subject: in.Subject})
	if err != nil {
		return nil, err
	}
	out := &SignedUp{Org: OrgBrief{ID: orgID, Name: in.OrgName}, Human: human(owner)}
	if err := seedRoles(ctx, tx, orgID); err != nil {
		return nil, err
	}
	if err := s.orgCreated(ctx, tx, seams.OrgCreated{OrgID: orgID}); err != nil {
		return nil, fmt.Errorf("people.createOrg: seed organization %s: %w", orgID, err)
	}
	_, err = s.log.Append(ctx, tx, ledger.Entry{Actor: "human:" + humanID, Action: "org.created", OrgID: orgID,
		Payload: map[string]any{"org_id": orgID, "name": in.OrgName, "owner": humanID, "display_name": in.DisplayName,
			"terms_version": in.TermsVersion, "issuer": in.Issuer}})
	return out, err
}

// freeID returns base if taken says it is free (and always suffixed when
// suffixAlways), else base-<n hex digits>, trying eight random suffixes.
func (s *Service) freeID(ctx context.Context, tx bun.IDB, taken func(context.Context, bun.IDB, string) (bool, error),
	base string, n int, suffixAlways bool) (string, error) {
	for try := 0; try < 8; try++ {
		id := base
		if suffixAlways || try > 0 {
			b := make([]byte, (n+1)/2)
			if _, err := io.ReadFull(s.rand, b); err != nil {
				return "", err
			}
			id = base + "-" + hex.EncodeToString(b)[:n]
		}
		used, err := taken(ctx, tx, id)
		if err != nil {
			return "", err
		}
		if !used {
			return id, nil
		}
	}
	return "", errs.E(errs.IDTaken, "could not find a free id from %s; try again", base)
}

// slug lowercases s, turns each run of characters other than a-z and 0-9
// into one '-', trims '-' and cuts it to at most max characters; fallback
// when nothing is left.
func slug(s string, max int, fallback string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	out := b.String()
	if len(out) > max {
		out = strings.TrimRight(out[:max], "-")
	}
	if out == "" {
		return fallback
	}
	return out
}

func validSignUp(in SignUpInput) error {
	if !in.AcceptTerms {
		return errs.E(errs.InvalidRequest, AcceptTermsMessage)
	}
	for _, f := range []struct {
		what, v string
		max     int
	}{{"org_name", in.OrgName, 80}, {"display_name", in.DisplayName, 80}, {"terms_version", in.TermsVersion, 64}} {
		if n := utf8.RuneCountInString(f.v); n == 0 || n > f.max {
			return errs.E(errs.InvalidRequest, "%s must be 1-%d characters", f.what, f.max)
		}
	}
	return nil
}
