package identity

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/sdk/errs"
)

// DefaultApprovalRules are the approval rules an organization made by
// sign-up starts with (docs/specs/behavior.md §5.8).
var DefaultApprovalRules = []string{"deploy.*", "finance.*", "customer.message"}

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

// OrgBrief is an organization as a sign-up answers it.
type OrgBrief struct {
	ID     string `bun:"id" json:"id"`
	Name   string `bun:"name" json:"name"`
	Halted bool   `bun:"halted" json:"halted"`
}

// SignedUp is the person a sign-up made or bound and their organization.
type SignedUp struct {
	Human Person   `json:"human"`
	Org   OrgBrief `json:"org"`
	// Invited: an owner had invited this email, so the account joined that
	// organization and none was made.
	Invited bool `json:"invited"`
}

// SignUp makes a new organization with the account as its owner (docs/specs/behavior.md
// §10.5): its id derived from the name, its own system chain, the terms
// recorded, the roles of role_templates and the default approval rules,
// and org.created as its first log entry. An account whose verified email
// an owner invited joins that organization instead (Invited) and makes
// none. Concurrent sign-ups of one account make one organization: they
// serialise on an advisory lock and the later ones find a person.
// Refusals: account_disabled, already_registered, signup_closed,
// invalid_request (no verified email, terms not accepted, a name or the
// terms version blank or too long), signup_busy. Refusals are not logged:
// the account has no organization to log them in.
func (s *Service) SignUp(ctx context.Context, pol SignUpPolicy, in SignUpInput) (*SignedUp, error) {
	in.OrgName, in.DisplayName = strings.TrimSpace(in.OrgName), strings.TrimSpace(in.DisplayName)
	in.TermsVersion, in.VerifiedEmail = strings.TrimSpace(in.TermsVersion), strings.TrimSpace(in.VerifiedEmail)
	if in.Issuer == "" || in.Subject == "" {
		return nil, errs.E(errs.Unauthorized, "this sign-in names no account")
	}
	var out *SignedUp
	var known *Person // the person the account is, or was invited as
	err := s.db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtextextended(?, 0))`,
			"signup:"+in.Issuer+":"+in.Subject); err != nil {
			return err
		}
		p, bound, err := s.existing(ctx, tx, in)
		if err != nil {
			return err
		}
		known = p
		switch {
		case p != nil && p.DisabledAt != nil:
			return disabled()
		case bound:
			return errs.E(errs.AlreadyRegistered, "this account is already %s of organization %s; sign in instead", p.ID, p.OrgID)
		case !pol.Enabled:
			return errs.E(errs.SignupClosed, SignupClosedMessage)
		case in.VerifiedEmail == "":
			return errs.E(errs.InvalidRequest, NoVerifiedEmail)
		}
		if err := validSignUp(in); err != nil {
			return err
		}
		if p != nil {
			out, err = s.joinInvited(ctx, tx, p, in)
			return err
		}
		var recent int
		if err := tx.NewRaw(`SELECT count(*) FROM orgs WHERE created_by IS NOT NULL
			AND created_at > now() - interval '1 hour'`).Scan(ctx, &recent); err != nil {
			return err
		}
		if recent >= pol.MaxPerHour {
			return errs.E(errs.SignupBusy, SignupBusyMessage)
		}
		out, err = s.createOrg(ctx, tx, in)
		return err
	})
	if errs.IsRefusal(err) && known != nil {
		return nil, s.logSignUpRefusal(ctx, known, in, err)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// logSignUpRefusal records a refused sign-up in the organization of the
// person the account is (or was invited as): a disabled person trying
// again, an account already registered, an invitation's sign-up with bad
// input, or another account presenting a registered person's verified
// email. A refusal that names no person has no organization to log it in.
func (s *Service) logSignUpRefusal(ctx context.Context, p *Person, in SignUpInput, refusal error) error {
	var sameAccount bool
	if err := s.db.NewRaw(`SELECT coalesce(auth_issuer = ? AND auth_sub = ?, false) FROM humans WHERE id = ?`,
		in.Issuer, in.Subject, p.ID).Scan(ctx, &sameAccount); err != nil {
		return fmt.Errorf("log the refused sign-up %v: %w", refusal, err)
	}
	// The caller proved to be p: by p's account, or by p's verified email
	// (same_account false: another account, or an invitation not taken yet).
	return s.log.RecordRefusal(ctx, s.db, ledger.Entry{OrgID: p.OrgID, Actor: "human:" + p.ID, Action: "admin.signup",
		Payload: map[string]any{"human_id": p.ID, "issuer": in.Issuer, "same_account": sameAccount}}, refusal)
}

// existing is the person the account already is (bound to it) or was
// invited as (their verified email, bound to no account). A person with
// that email bound to another account counts as bound.
func (s *Service) existing(ctx context.Context, tx bun.IDB, in SignUpInput) (p *Person, bound bool, err error) {
	p, err = s.personWhere(ctx, tx, `auth_issuer = ? AND auth_sub = ?`, in.Issuer, in.Subject)
	if err != nil || p != nil || in.VerifiedEmail == "" {
		return p, p != nil, err
	}
	p, err = s.personWhere(ctx, tx, `lower(email) = lower(?)`, in.VerifiedEmail)
	if err != nil || p == nil {
		return nil, false, err
	}
	err = tx.NewRaw(`SELECT auth_sub IS NOT NULL FROM humans WHERE id = ?`, p.ID).Scan(ctx, &bound)
	return p, bound, err
}

// joinInvited binds invited person p to the account, as a first sign-in
// would, and logs admin.human.bind in their organization.
func (s *Service) joinInvited(ctx context.Context, tx bun.Tx, p *Person, in SignUpInput) (*SignedUp, error) {
	res, err := tx.ExecContext(ctx, `UPDATE humans SET auth_issuer = ?, auth_sub = ? WHERE id = ? AND auth_sub IS NULL`,
		in.Issuer, in.Subject, p.ID)
	if err != nil {
		return nil, translate(err, "the account of human "+p.ID)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, errs.E(errs.AlreadyRegistered, "this account is already %s of organization %s; sign in instead", p.ID, p.OrgID)
	}
	if _, err := s.log.Append(ctx, tx, ledger.Entry{Actor: "human:" + p.ID, Action: "admin.human.bind", OrgID: p.OrgID,
		Payload: map[string]any{"human_id": p.ID, "issuer": in.Issuer, "via": "signup"}}); err != nil {
		return nil, err
	}
	out := &SignedUp{Human: *p, Invited: true}
	err = tx.NewRaw(`SELECT id, name, halted FROM orgs WHERE id = ?`, p.OrgID).Scan(ctx, &out.Org)
	return out, err
}

// createOrg makes the organization and its owner, seeds it and logs
// org.created.
func (s *Service) createOrg(ctx context.Context, tx bun.Tx, in SignUpInput) (*SignedUp, error) {
	orgID, err := s.freeID(ctx, tx, "orgs", slug(in.OrgName, 30, "org"), 6, true)
	if err != nil {
		return nil, err
	}
	local, _, _ := strings.Cut(in.VerifiedEmail, "@")
	humanID, err := s.freeID(ctx, tx, "humans", slug(local, 30, "owner"), 4, false)
	if err != nil {
		return nil, err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO orgs (id, name, system_chain, terms_version, terms_accepted_at, created_by)
		VALUES (?, ?, ?, ?, now(), ?)`, orgID, in.OrgName, "_system:"+orgID, in.TermsVersion, humanID)
	if err != nil {
		return nil, translate(err, "organization "+orgID)
	}
	out := &SignedUp{Org: OrgBrief{ID: orgID, Name: in.OrgName}}
	err = tx.NewRaw(`INSERT INTO humans (id, org_id, name, role, email, auth_issuer, auth_sub)
		VALUES (?, ?, ?, 'owner', ?, ?, ?) RETURNING `+personCols,
		humanID, orgID, in.DisplayName, in.VerifiedEmail, in.Issuer, in.Subject).Scan(ctx, &out.Human)
	if err != nil {
		return nil, translate(err, "human "+humanID)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO agent_roles (org_id, id, name, description, client, actions, limits,
			delegations, mandate_days, token_days, settings, instructions, position)
		SELECT ?, id, name, description, client, actions, limits, delegations, mandate_days, token_days, settings,
			instructions, position FROM role_templates`, orgID); err != nil {
		return nil, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO approval_actions (org_id, action) SELECT ?, unnest(?::text[])`,
		orgID, pgdialect.Array(DefaultApprovalRules)); err != nil {
		return nil, err
	}
	_, err = s.log.Append(ctx, tx, ledger.Entry{Actor: "human:" + humanID, Action: "org.created", OrgID: orgID,
		Payload: map[string]any{"org_id": orgID, "name": in.OrgName, "owner": humanID, "display_name": in.DisplayName,
			"terms_version": in.TermsVersion, "issuer": in.Issuer}})
	return out, err
}

// freeID returns base if it is free in table (and always suffixed when
// suffixAlways), else base-<n hex digits>, trying a few random suffixes.
func (s *Service) freeID(ctx context.Context, tx bun.IDB, table, base string, n int, suffixAlways bool) (string, error) {
	for try := 0; try < 8; try++ {
		id := base
		if suffixAlways || try > 0 {
			b := make([]byte, (n+1)/2)
			if _, err := io.ReadFull(s.rand, b); err != nil {
				return "", err
			}
			id = base + "-" + hex.EncodeToString(b)[:n]
		}
		var taken bool
		if err := tx.NewRaw(`SELECT EXISTS (SELECT 1 FROM `+table+` WHERE id = ?)`, id).Scan(ctx, &taken); err != nil {
			return "", err
		}
		if !taken {
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
