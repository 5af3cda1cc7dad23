package identity

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/pactboard/pact/sdk/errs"
)

// Org is an organization as its people see it.
type Org struct {
	ID           string    `bun:"id"`
	Name         string    `bun:"name"`
	Halted       bool      `bun:"halted"`
	TermsVersion *string   `bun:"terms_version"`
	CreatedAt    time.Time `bun:"created_at"`
	// Language is the language its people read notifications in
	// (core/i18n): "en" unless the organization chose another.
	Language string `bun:"language"`
}

// GetOrg returns organization id, or not_found.
func (s *Service) GetOrg(ctx context.Context, tx bun.IDB, id string) (*Org, error) {
	var rows []Org
	err := tx.NewRaw(`SELECT id, name, halted, terms_version, created_at, language FROM orgs WHERE id = ?`, id).Scan(ctx, &rows)
	if err != nil {
		return nil, fmt.Errorf("identity.GetOrg: %w", err)
	}
	if len(rows) == 0 {
		return nil, errs.E(errs.NotFound, "organization %s does not exist", id)
	}
	return &rows[0], nil
}

// OrgExists reports whether id names an organization.
func (s *Service) OrgExists(ctx context.Context, tx bun.IDB, id string) (bool, error) {
	var taken bool
	err := tx.NewRaw(`SELECT EXISTS (SELECT 1 FROM orgs WHERE id = ?)`, id).Scan(ctx, &taken)
	return taken, err
}

// SignUpsLastHour is how many organizations sign-up made in the last hour
// (those with a creator), for sign-up's circuit breaker.
func (s *Service) SignUpsLastHour(ctx context.Context, tx bun.IDB) (int, error) {
	var n int
	err := tx.NewRaw(`SELECT count(*) FROM orgs WHERE created_by IS NOT NULL
		AND created_at > now() - interval '1 hour'`).Scan(ctx, &n)
	return n, err
}

// NewOrg is an organization sign-up makes and its owner, bound to the
// account that signed up.
type NewOrg struct {
	ID, Name, TermsVersion    string
	OwnerID, OwnerName, Email string
	Issuer, Subject           string
}

// CreateOrg inserts the organization, with its own system chain and the
// terms accepted now, and its owner, in tx (modules/people's sign-up).
// Refusals: the database's (db.Refusal).
func (s *Service) CreateOrg(ctx context.Context, tx bun.IDB, in NewOrg) (*Person, error) {
	_, err := tx.ExecContext(ctx, `INSERT INTO orgs (id, name, system_chain, terms_version, terms_accepted_at, created_by)
		VALUES (?, ?, ?, ?, now(), ?)`, in.ID, in.Name, "_system:"+in.ID, in.TermsVersion, in.OwnerID)
	if err != nil {
		return nil, translate(err, "organization "+in.ID)
	}
	var p Person
	err = tx.NewRaw(`INSERT INTO humans (id, org_id, name, role, email, auth_issuer, auth_sub)
		VALUES (?, ?, ?, 'owner', ?, ?, ?) RETURNING `+personCols,
		in.OwnerID, in.ID, in.OwnerName, in.Email, in.Issuer, in.Subject).Scan(ctx, &p)
	if err != nil {
		return nil, translate(err, "human "+in.OwnerID)
	}
	return &p, nil
}

// SetOrgName renames org, in tx; the caller validated the name.
func (s *Service) SetOrgName(ctx context.Context, tx bun.IDB, org, name string) error {
	_, err := tx.ExecContext(ctx, `UPDATE orgs SET name = ? WHERE id = ?`, name, org)
	return translate(err, "organization "+org)
}

// orgSecrets are the columns of orgs holding a sealed secret (core/seal).
var orgSecrets = map[string]bool{"slack_webhook_url": true}

// SetOrgSecret stores sealed (nil removes it) in org's secret column, in
// tx, for the module that seals it (modules/notify, the Slack webhook).
// With was set it changes the column only while it still holds *was, so a
// reseal racing another writer leaves the row to it. It reports whether it
// changed the row.
func (s *Service) SetOrgSecret(ctx context.Context, tx bun.IDB, org, column string, sealed, was *string) (bool, error) {
	if !orgSecrets[column] {
		return false, fmt.Errorf("identity: orgs.%s holds no secret", column)
	}
	res, err := tx.ExecContext(ctx, `UPDATE orgs SET `+column+` = ? WHERE id = ? AND (?::text IS NULL OR `+column+` = ?)`,
		sealed, org, was, was)
	if err != nil {
		return false, translate(err, "organization "+org)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
