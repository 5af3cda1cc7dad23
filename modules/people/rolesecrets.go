package people

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/pactboard/pact/core/redact"
	"github.com/pactboard/pact/core/seal"
	"github.com/pactboard/pact/sdk/errs"
)

// secretSetting matches the role settings that are credentials: the
// database URL (it carries a password) and any key whose last word says
// token, secret, password, key or credentials (PACT_RUNNER_GITHUB_TOKEN, say).
// Their values are stored sealed (core/seal), never shown by the Admin API,
// and handed in clear only to the agent that redeems its setup code
// (docs/invariants.md SEC-006).
var secretSetting = regexp.MustCompile(`^(DATABASE_URL|([A-Z0-9]+_)*(TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIALS?))$`)

// settingPlace binds a sealed setting to its organization, role and key, so
// a value copied anywhere else does not open.
func settingPlace(org, role, key string) string {
	return "agent_roles.settings/" + org + "/" + role + "/" + key
}

// sealSettings returns in with its secret values sealed for org's role. A
// secret sent back as the Admin API showed it (redact.Mark) keeps the value
// stored; without one it is refused, since the board never saw it. A blank
// secret is no secret: it stays blank, so it shows as unset.
func sealSettings(box *seal.Box, org, role string, in, stored map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(in))
	for k, v := range in {
		switch {
		case !secretSetting.MatchString(k), v == "":
			out[k] = v
		case v == redact.Mark:
			old, ok := stored[k]
			if !ok {
				return nil, errs.E(errs.InvalidRequest, "setting %s: give its value; the role holds none", k)
			}
			out[k] = old
		default:
			sealed, err := box.Seal(v, settingPlace(org, role, k))
			if err != nil {
				return nil, fmt.Errorf("seal setting %s: %w", k, err)
			}
			out[k] = sealed
		}
	}
	return out, nil
}

// openSettings returns settings with the secret values in clear, for the
// agent hired from org's role and no one else. A value stored before
// sealing passes through.
func openSettings(box *seal.Box, org, role string, settings map[string]string) (map[string]string, error) {
	out := make(map[string]string, len(settings))
	for k, v := range settings {
		if !secretSetting.MatchString(k) || v == "" {
			out[k] = v
			continue
		}
		plain, err := box.Open(v, settingPlace(org, role, k))
		if err != nil {
			return nil, errs.E(errs.InvalidRequest, "role %s: setting %s cannot be read (%v); an approver must set it again", role, k, err)
		}
		out[k] = plain
	}
	return out, nil
}

// shownSettings is settings as people and the log may see them: secret
// values say only that they are set.
func shownSettings(settings map[string]string) map[string]string {
	out := make(map[string]string, len(settings))
	for k, v := range settings {
		if secretSetting.MatchString(k) && v != "" {
			v = redact.Mark
		}
		out[k] = v
	}
	return out
}

// resealRoleSettings seals again every secret role setting that is not
// sealed under the board's active key: values saved before sealing, or
// under a key rotated out of first place. A value whose key left the
// keyring stays as it is (redeeming says to set it again). It returns how
// many roles it changed.
func (s *Service) resealRoleSettings(ctx context.Context) (int, error) {
	d, box := s.db, s.seal
	roles, err := rolesWithSettings(ctx, d)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, r := range roles {
		dirty := false
		for k, v := range r.Settings {
			if !secretSetting.MatchString(k) || v == "" || !box.Stale(v) {
				continue
			}
			again, err := box.Reseal(v, settingPlace(r.OrgID, r.ID, k))
			if err != nil {
				continue // a retired key: left for an approver to set again
			}
			r.Settings[k], dirty = again, true
		}
		if !dirty {
			continue
		}
		raw, _ := json.Marshal(r.Settings)
		// Only the settings as read are replaced: a save in between wins.
		done, err := replaceSettings(ctx, d, r, string(raw))
		if err != nil {
			return changed, err
		}
		if done {
			changed++
		}
	}
	return changed, nil
}
