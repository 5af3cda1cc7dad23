package pluginhost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/sdk/errs"
)

// Offer is a first-party plugin that one of the board's variables turns on
// (docs/plugins.md, "Bundled plugins"): setting the variable runs the
// binary make build put in PACT_PLUGIN_DIR, pinned to the SHA-256 make
// build embedded in pact-board.
type Offer struct {
	// Var is the variable, and Value what it must be set to (any non-empty
	// value when Value is empty; Example then shows one).
	Var, Value, Example string
	// What says in a few words what the plugin does, for the first-run
	// output.
	What string
	// Spec is the catalog entry the board runs (name, kind, binary, env);
	// its SHA256 comes from the manifest.
	Spec Spec
	// On reports whether the variable asks for the plugin.
	On bool
}

// Offers lists the first-party plugins cfg's variables can turn on, in a
// fixed order. The names are the ones the board looks plugins up by: the
// first authissuer for people's tokens, "slack" for the Slack webhook,
// "email" for people's email,
// the export format for credentials.
func Offers(cfg *boot.Config) []Offer {
	slackEnv := map[string]string{}
	if cfg.AdminUIURL != "" {
		slackEnv["PACT_ADMIN_UI_URL"] = cfg.AdminUIURL
	}
	return []Offer{
		{Var: "PACT_AUTH_ISSUER", Example: "https://login.example.com", What: "people sign in with the OAuth issuer's tokens", On: cfg.AuthIssuer != "",
			Spec: Spec{Name: "oidc", Kind: KindAuthIssuer, Binary: "auth-oidc", Env: map[string]string{"PACT_OIDC_ISSUER": cfg.AuthIssuer}}},
		{Var: "PACT_SLACK_WEBHOOK_URL", Example: "https://hooks.slack.com/services/…", What: "notifications go to a Slack channel", On: cfg.SlackWebhookURL != "",
			Spec: Spec{Name: "slack", Kind: KindNotifier, Binary: "notifier-slack", Env: slackEnv}},
		// The SMTP URL holds a password: it reaches the plugin through its
		// environment, never its command line.
		{Var: "PACT_SMTP_URL", Example: "smtp://user:pass@mail.example.com:587?from=board@example.com", What: "people get email of the notices they choose",
			On: cfg.SMTPURL != "", Spec: Spec{Name: "email", Kind: KindNotifier, Binary: "notifier-email", Env: map[string]string{"PACT_SMTP_URL": cfg.SMTPURL}}},
		{Var: "PACT_EXPORT_FORMAT", Value: "tenuo", What: "every claim exports a Tenuo credential", On: cfg.ExportFormat == "tenuo",
			Spec: Spec{Name: "tenuo", Kind: KindCredential, Binary: "credential-tenuo"}},
		{Var: "PACT_EXPORT_FORMAT", Value: "biscuit", What: "every claim exports a Biscuit credential", On: cfg.ExportFormat == "biscuit",
			Spec: Spec{Name: "biscuit", Kind: KindCredential, Binary: "credential-biscuit"}},
	}
}

// ParseManifest reads the pins make build embeds in pact-board: the catalog
// entries `pact-admin plugin-pin` prints for the binaries it built, one
// JSON object after another. Empty (a plain go build) pins nothing.
func ParseManifest(raw []byte) ([]Spec, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var out []Spec
	for {
		var s Spec
		err := dec.Decode(&s)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("the bundled plugin manifest: %w", err)
		}
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("the bundled plugin manifest: %q: %w", s.Name, err)
		}
		if s.SHA256 == "" {
			return nil, fmt.Errorf("the bundled plugin manifest: %q has no sha256", s.Name)
		}
		out = append(out, s)
	}
}

// Catalog is the plugins the board runs: PACT_PLUGINS, then each offer
// whose variable is set, pinned by manifest. An entry of PACT_PLUGINS with
// the offer's name replaces it, and so does any authissuer entry for
// PACT_AUTH_ISSUER (the board uses only the first). An offer the manifest
// does not pin is left out, with a warning in the returned list saying how
// to run it.
func Catalog(cfg *boot.Config, manifest []Spec) (specs []Spec, warnings []string, err error) {
	specs, err = ParseCatalog(cfg.Plugins)
	if err != nil {
		return nil, nil, err
	}
	named := map[string]bool{}
	issuer := false
	for _, s := range specs {
		named[s.Name] = true
		issuer = issuer || s.Kind == KindAuthIssuer
	}
	for _, o := range Offers(cfg) {
		if !o.On || named[o.Spec.Name] || (o.Spec.Kind == KindAuthIssuer && issuer) {
			continue
		}
		pin, ok := pinOf(manifest, o.Spec.Binary)
		if !ok {
			warnings = append(warnings, fmt.Sprintf("%s is set but this pact-board has no pin for the bundled plugin %s "+
				"(it was built without make build): the plugin does not run; build with make build, or name it in PACT_PLUGINS "+
				"(pact-admin plugin-pin %s prints the entry)", o.Var, o.Spec.Binary, filepath.Join(cfg.PluginDir, o.Spec.Binary)))
			continue
		}
		s := o.Spec
		s.SHA256, s.bundled = pin, true
		specs = append(specs, s)
	}
	return specs, warnings, nil
}

// pinOf returns the manifest's sha256 of the binary named binary.
func pinOf(manifest []Spec, binary string) (string, bool) {
	for _, s := range manifest {
		if filepath.Base(s.Binary) == binary {
			return s.SHA256, true
		}
	}
	return "", false
}

// PinEntry is the catalog entry that pins the binary at path, as
// `pact-admin plugin-pin` prints it. The kind and name come from the file's
// name (notifier-slack: notifier "slack"; credential-biscuit: credential
// "biscuit"; auth-oidc: authissuer "oidc") unless kind or name are given.
// binary is the file's name when it is in dir (PACT_PLUGIN_DIR), else its
// absolute path.
func PinEntry(path, dir string, kind Kind, name string) (Spec, error) {
	sum, err := fileSHA256(path)
	if err != nil {
		return Spec{}, errs.E(errs.InvalidRequest, "cannot read the plugin binary: %v", err)
	}
	base := filepath.Base(path)
	prefixes := []struct {
		prefix string
		kind   Kind
	}{{"notifier-", KindNotifier}, {"credential-", KindCredential}, {"auth-", KindAuthIssuer}}
	guess := base
	for _, p := range prefixes {
		if rest, ok := strings.CutPrefix(base, p.prefix); ok {
			guess, kind = rest, cmpOr(kind, p.kind)
			break
		}
	}
	if kind == "" {
		return Spec{}, errs.E(errs.InvalidRequest, "cannot tell the kind of %s from its name: add --kind notifier, credential or authissuer", base)
	}
	s := Spec{Name: cmpOr(name, guess), Kind: kind, Binary: base, SHA256: sum}
	abs, _ := filepath.Abs(path)
	if d, _ := filepath.Abs(dir); filepath.Dir(abs) != d {
		s.Binary = abs
	}
	if err := s.check(); err != nil {
		return Spec{}, errs.E(errs.InvalidRequest, "%v (choose one with --name)", err)
	}
	return s, nil
}
