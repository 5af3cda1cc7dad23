package outbox_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/kernel/kerneltest"
	"github.com/pactboard/pact/core/ledger"
	"github.com/pactboard/pact/core/outbox"
)

// A detail the board wrote in every language is stored in the language of
// the project's organization, English when that language is missing, and
// cleaned like any detail; an organization left at the default reads
// English.
func TestEnqueueKeepsTheOrganizationsLanguage(t *testing.T) {
	ctx := context.Background()
	d, _ := pending(t)
	ident := identity.NewService(d, ledger.New(nil), nil)
	kerneltest.MakeOrg(t, d, ledger.New(nil), ident, "https://issuer.test", "acme", "bo", nil)
	_, err := ident.AddProject(ctx, "bo", "rocket", "Rocket", false)
	require.NoError(t, err)
	detail := func(in map[string]string) string {
		t.Helper()
		var id int64
		require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
			id, err = outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.Question, ProjectID: "rocket",
				Title: "t", Detail: "fallback", DetailIn: in})
			return err
		}))
		var got string
		require.NoError(t, d.NewRaw(`SELECT coalesce(detail, '<null>') FROM notifications WHERE id = ?`, id).Scan(ctx, &got))
		return got
	}
	both := map[string]string{"en": "a person decides", "th": "ให้คนตัดสิน  token=abc\nsecond"}
	require.Equal(t, "a person decides", detail(both))
	require.NoError(t, ident.SetOrgLanguage(ctx, d, "acme", "th"))
	require.Equal(t, "ให้คนตัดสิน token=[REDACTED]", detail(both), "redacted, squeezed, first line")
	require.Equal(t, "only English", detail(map[string]string{"en": "only English"}))
	require.Equal(t, "fallback", detail(nil))
}

// A notification for one person keeps the detail in that person's language
// when they chose one, and in the organization's when they did not; a
// person of another organization cannot change the language, and the row
// names its person.
func TestEnqueueForOnePersonKeepsTheirLanguage(t *testing.T) {
	ctx := context.Background()
	d, _ := pending(t) // ana, of another organization
	ident := identity.NewService(d, ledger.New(nil), nil)
	kerneltest.MakeOrg(t, d, ledger.New(nil), ident, "https://issuer.test", "acme", "bo", nil)
	_, err := ident.AddProject(ctx, "bo", "rocket", "Rocket", false)
	require.NoError(t, err)
	both := map[string]string{"en": "nobody read it", "th": "ยังไม่มีใครอ่าน"}
	enqueue := func(human string) (detail string, humanID *string) {
		t.Helper()
		var id int64
		require.NoError(t, d.InTx(ctx, func(ctx context.Context, tx bun.Tx) (err error) {
			id, err = outbox.Enqueue(ctx, tx, outbox.Notification{Kind: outbox.PactUnread, ProjectID: "rocket",
				HumanID: human, Title: "t", DetailIn: both})
			return err
		}))
		require.NoError(t, d.NewRaw(`SELECT detail, human_id FROM notifications WHERE id = ?`, id).Scan(ctx, &detail, &humanID))
		return detail, humanID
	}
	detail, human := enqueue("bo")
	require.Equal(t, "nobody read it", detail, "no choice of their own: the organization's language")
	require.Equal(t, "bo", *human)

	th := "th"
	_, err = ident.SetHumanLanguage(ctx, d, "bo", &th)
	require.NoError(t, err)
	detail, _ = enqueue("bo")
	require.Equal(t, "ยังไม่มีใครอ่าน", detail)
	detail, human = enqueue("")
	require.Equal(t, "nobody read it", detail, "for the organization's people: the organization's language")
	require.Nil(t, human)

	_, err = ident.SetHumanLanguage(ctx, d, "ana", &th)
	require.NoError(t, err)
	_, err = ident.SetHumanLanguage(ctx, d, "bo", nil)
	require.NoError(t, err)
	require.NoError(t, ident.SetOrgLanguage(ctx, d, "acme", "en"))
	detail, _ = enqueue("ana")
	require.Equal(t, "nobody read it", detail, "another organization's person does not choose acme's language")
}
