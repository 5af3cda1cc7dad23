package notify_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"github.com/pactboard/pact/core/db"
	"github.com/pactboard/pact/core/identity"
	"github.com/pactboard/pact/core/ledger"
	mandates "github.com/pactboard/pact/core/mandate"
	"github.com/pactboard/pact/core/outbox"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/modules/notify"
)

// keyring is the board keyring of kids, each with a seed of its own letter.
func keyring(t *testing.T, kids ...string) *mandates.Keyring {
	t.Helper()
	var entries []string
	for _, kid := range kids {
		entries = append(entries, kid+"="+base64.RawURLEncoding.EncodeToString([]byte(strings.Repeat(kid[:1], 32))))
	}
	k, err := mandates.ParseKeyring(strings.Join(entries, ","), "")
	require.NoError(t, err)
	return k
}

// sealedColumns is every column the schema marks as sealed (its comment
// starts with "sealed"), read from the database catalog.
func sealedColumns(t *testing.T, d *db.DB) map[string]bool {
	t.Helper()
	var cols []string
	require.NoError(t, d.NewRaw(`SELECT c.relname || '.' || a.attname
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = current_schema() AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
		AND col_description(a.attrelid, a.attnum) LIKE 'sealed%'`).Scan(context.Background(), &cols))
	out := map[string]bool{}
	for _, c := range cols {
		out[c] = true
	}
	return out
}

// secretKeyPattern is a settings key that names a secret (PostgreSQL
// regular expression): modules/people seals these keys' values.
const secretKeyPattern = `^(DATABASE_URL|([A-Z0-9]+_)*(TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIALS?))$`

// secretKeyValues is every value of a secret-looking key at the top of the
// objects in jsonb column c ("table.column").
func secretKeyValues(t *testing.T, d *db.DB, c string) []string {
	t.Helper()
	table, col, _ := strings.Cut(c, ".")
	var values []string
	require.NoError(t, d.NewRaw(fmt.Sprintf(`SELECT kv.value FROM %s,
		jsonb_each_text(CASE WHEN jsonb_typeof(%s) = 'object' THEN %s ELSE '{}'::jsonb END) kv
		WHERE kv.key ~ ?`, table, col, col), secretKeyPattern).Scan(context.Background(), &values))
	return values
}

// Every value in a sealed column is sealed after people set them through
// the board, and deliveries still get them in clear. The population comes
// from the catalog; a column whose name says secret, webhook, password or
// key must be marked sealed (or be a hash), so a new one cannot escape.
func TestSecretsAreSealedAtRest(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	keys := keyring(t, "k1")
	people := identity.NewService(d, ledger.New(nil), nil)
	slack, rcv := &recorder{}, newReceiver(t)
	svc := notify.NewService(d, ledger.New(nil), &notify.Options{Seal: seal.New(keys),
		Notifiers: plugins{"webhook": &poster{client: rcv.Client()}, "slack": slack}})

	const hook = "https://hooks.slack.com/services/T0/B0/slacksecretpath"
	require.NoError(t, svc.SlackWebhooks(people).SetSlackWebhook(ctx, d, "default", hook))
	added, err := svc.AddDestination(ctx, "ana", notify.DestinationInput{Notifier: "webhook", URL: rcv.URL + "/hooks/pathsecret"})
	require.NoError(t, err)

	// A runner role with a database URL, as modules/people saves it: the
	// secret sealed, the rest in clear (written directly: a module's tests
	// may not import another module).
	roleURL, err := seal.New(keys).Seal("postgres://u:rolesecret@db/x", "agent_roles.settings/default/db-runner/DATABASE_URL")
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, `INSERT INTO agent_roles (org_id, id, name, client, actions, settings)
		VALUES ('default', 'db-runner', 'DB runner', 'runner', '{task.work}', jsonb_build_object('DATABASE_URL', ?::text, 'PACT_RUNNER_MAX_TURNS', '40'))`, roleURL)
	require.NoError(t, err)

	// An agent's pact webhook, as modules/pacts seals it (per agent).
	pactURL, err := seal.New(keys).Seal(rcv.URL+"/hooks/pactsecret", "pact_delivery.url/code-web")
	require.NoError(t, err)
	pactSecret, err := seal.New(keys).Seal("whsec_pactsecret", "pact_delivery.secret/code-web")
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, `INSERT INTO pact_delivery (agent_id, org_id, mode, url, secret) VALUES ('code-web', 'default', 'webhook', ?, ?)`,
		pactURL, pactSecret)
	require.NoError(t, err)

	// An A2A push config and its agent's signing key, as modules/board
	// seals them (per config, per agent).
	const config = "33333333-3333-4333-8333-333333333333"
	var pushValues []any
	for _, v := range [][2]string{{rcv.URL + "/hooks/pushsecret", "a2a_push_configs.url/" + config},
		{"pushsecret-token", "a2a_push_configs.token/" + config}, {"pushsecret-credentials", "a2a_push_configs.credentials/" + config},
		{"whsec_pushsecret", "a2a_push_signing.signing_key/code-web"}} {
		sealed, err := seal.New(keys).Seal(v[0], v[1])
		require.NoError(t, err)
		pushValues = append(pushValues, sealed)
	}
	_, err = d.ExecContext(ctx, `INSERT INTO a2a_push_configs (id, org_id, agent_id, task_id, url, token, auth_scheme, credentials)
		VALUES (?, 'default', 'code-web', ?, ?, ?, 'Bearer', ?)`, config, w.task, pushValues[0], pushValues[1], pushValues[2])
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, `INSERT INTO a2a_push_signing (agent_id, org_id, signing_key) VALUES ('code-web', 'default', ?)`, pushValues[3])
	require.NoError(t, err)

	// A remote A2A agent's credentials, as modules/board seals them.
	remoteAuth, err := seal.New(keys).Seal("Bearer pushsecret-remote", "a2a-remote:code-web")
	require.NoError(t, err)
	_, err = d.ExecContext(ctx, `INSERT INTO a2a_remotes (agent_id, org_id, card_url, auth_header, set_by)
		VALUES ('code-web', 'default', 'https://agent.example.com/card', ?, 'ana')`, remoteAuth)
	require.NoError(t, err)

	cols := sealedColumns(t, d)
	require.Equal(t, map[string]bool{"orgs.slack_webhook_url": true, "notify_destinations.url": true,
		"notify_destinations.secret": true, "agent_roles.settings": true,
		"pact_delivery.url": true, "pact_delivery.secret": true, "a2a_push_configs.url": true, "a2a_push_configs.token": true,
		"a2a_push_configs.credentials": true, "a2a_push_signing.signing_key": true, "a2a_remotes.auth_header": true}, cols)
	var all []string
	require.NoError(t, d.NewRaw(`SELECT table_name || '.' || column_name FROM information_schema.columns
		WHERE table_schema = current_schema()`).Scan(ctx, &all))
	secretLike := regexp.MustCompile(`(secret|webhook|password|passwd|api_key|private)`)
	for _, c := range all {
		if secretLike.MatchString(c) && !strings.HasSuffix(c, "_hash") {
			require.True(t, cols[c], "%s looks like a secret: seal it and mark it in a migration", c)
		}
	}
	// A jsonb column is a secret's column when any row holds a key that
	// looks like one (settings such as DATABASE_URL or *_TOKEN): it must be
	// marked, and only those keys' values are checked.
	var jsonCols []string
	require.NoError(t, d.NewRaw(`SELECT table_name || '.' || column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND data_type = 'jsonb'`).Scan(ctx, &jsonCols))
	for _, c := range jsonCols {
		if len(secretKeyValues(t, d, c)) > 0 {
			require.True(t, cols[c], "%s holds secret-looking keys: seal their values and mark it in a migration", c)
		}
	}
	for c := range cols {
		table, col, _ := strings.Cut(c, ".")
		var values []string
		if slices.Contains(jsonCols, c) {
			values = secretKeyValues(t, d, c)
		} else {
			require.NoError(t, d.NewRaw(fmt.Sprintf(`SELECT %s FROM %s WHERE %s IS NOT NULL`, col, table, col)).Scan(ctx, &values))
		}
		require.NotEmpty(t, values, "%s holds a value to check", c)
		for _, v := range values {
			require.True(t, strings.HasPrefix(v, seal.Prefix+"k1:"), "%s holds %q, not sealed", c, v)
			for _, clear := range []string{"slacksecretpath", "pathsecret", added.Secret, "rolesecret", "pactsecret", "pushsecret"} {
				require.NotContains(t, v, clear)
			}
		}
	}

	enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	got := slack.deliveries()
	require.Len(t, got, 1)
	require.Equal(t, hook, got[0].Dest.URL, "the Slack plugin gets the webhook in clear")
	_, byPath, _ := rcv.counts()
	require.Equal(t, 1, byPath["/hooks/pathsecret"])
	hint, err := svc.SlackWebhooks(people).SlackHint(ctx, d, "default")
	require.NoError(t, err)
	require.Equal(t, "…path", *hint)
}

// Values written before sealing, and values sealed under a key that is no
// longer first, are sealed again under the active key at start; what a
// retired key sealed says to add it again, and its deliveries are refused
// for good rather than retried.
func TestResealAndRetiredKeys(t *testing.T) {
	ctx := context.Background()
	w := newWorld(t)
	d := w.DB
	const hook = "https://hooks.slack.com/services/T/B/plain"
	// Values in clear, as a board before sealing wrote them: no service
	// writes a secret unsealed.
	w.Exec(`UPDATE orgs SET slack_webhook_url = ? WHERE id = 'default'`, hook)
	w.Exec(`INSERT INTO notify_destinations (org_id, notifier, url, secret, created_by)
		VALUES ('default', 'webhook', 'https://receiver.example/plain', 'whsec_plain', 'ana')`)

	reseal := func(kids ...string) (*notify.Service, *identity.Service) {
		keys := keyring(t, kids...)
		people := identity.NewService(d, ledger.New(nil), nil)
		svc := notify.NewService(d, ledger.New(nil), &notify.Options{Seal: seal.New(keys)})
		n, err := svc.ResealOrgSecrets(ctx, people)
		require.NoError(t, err)
		m, err := svc.ResealDestinations(ctx)
		require.NoError(t, err)
		require.Equal(t, 2, n+m, "the webhook and the destination were sealed (again)")
		return svc, people
	}
	stored := func() []string {
		var v []string
		require.NoError(t, d.NewRaw(`SELECT slack_webhook_url FROM orgs WHERE id = 'default'
			UNION ALL SELECT url FROM notify_destinations UNION ALL SELECT secret FROM notify_destinations`).Scan(ctx, &v))
		return v
	}
	reseal("k1")
	for _, v := range stored() {
		require.True(t, strings.HasPrefix(v, seal.Prefix+"k1:"), v)
	}
	reseal("k2", "k1")
	for _, v := range stored() {
		require.True(t, strings.HasPrefix(v, seal.Prefix+"k2:"), "rotation seals again under the new key: %s", v)
	}

	// Both keys retired: nothing opens.
	keys := keyring(t, "k3")
	people := identity.NewService(d, ledger.New(nil), nil)
	slack, hookPlugin := &recorder{}, &recorder{}
	svc := notify.NewService(d, ledger.New(nil), &notify.Options{Seal: seal.New(keys),
		Notifiers: plugins{"webhook": hookPlugin, "slack": slack}})
	hint, err := svc.SlackWebhooks(people).SlackHint(ctx, d, "default")
	require.NoError(t, err)
	require.Contains(t, *hint, "set it again")
	list, err := svc.ListDestinations(ctx, "ana")
	require.NoError(t, err)
	require.Contains(t, list.Items[0].URLHint, "add it again")
	id := enqueue(t, d, outbox.Notification{Kind: outbox.Message, ProjectID: "web", Title: "hello"})
	_, err = svc.DeliverDue(ctx)
	require.NoError(t, err)
	require.Empty(t, slack.deliveries())
	require.Empty(t, hookPlugin.deliveries())
	st := state(t, d, id)
	require.NotNil(t, st.DeadAt, "a destination that cannot be read is refused for good, not retried")
	require.Contains(t, *st.LastError, "enter it again")
	require.Equal(t, 0, countWhere(t, d, `notify_destinations`, `url NOT LIKE 'sealed:v1:k2:%'`), "a failed open changes nothing")
}

// A board process seals what it finds in clear when it starts: the notify
// module's reseal worker, with the kernel's keyring and identity service.
func TestABoardSealsStoredSecretsAtStart(t *testing.T) {
	w := newWorld(t)
	d := w.DB
	// Values in clear, as a board before sealing wrote them: no service
	// writes a secret unsealed.
	w.Exec(`UPDATE orgs SET slack_webhook_url = 'https://hooks.slack.com/services/T/B/plain' WHERE id = 'default';
		INSERT INTO notify_destinations (org_id, notifier, url, secret, created_by)
		VALUES ((SELECT org_id FROM humans WHERE id = 'bo'), 'webhook', 'https://receiver.example/plain', 'whsec_plain', 'bo')`)

	startProcess(w, nil, notify.Options{})
	active := seal.Prefix + w.Mandates.Keys().ActiveKid() + ":%"
	eventually(t, 30*time.Second, func() bool {
		return countWhere(t, d, "orgs", `slack_webhook_url LIKE ?`, active) == 1 &&
			countWhere(t, d, "notify_destinations", `url LIKE ? AND secret LIKE ?`, active, active) == 1
	}, "the stored secrets are sealed under the active key")
}

func countWhere(t *testing.T, d bun.IDB, table, where string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, d.NewRaw(`SELECT count(*) FROM `+table+` WHERE `+where, args...).Scan(context.Background(), &n))
	return n
}
