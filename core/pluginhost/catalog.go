package pluginhost

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/pactboard/pact/sdk/errs"
)

// Kind is which SDK contract a plugin serves.
type Kind string

// The three plugin kinds of the SDK.
const (
	KindNotifier   Kind = "notifier"   // sdk/notifier
	KindCredential Kind = "credential" // sdk/credential
	KindAuthIssuer Kind = "authissuer" // sdk/authissuer
)

// pinned reports whether binaries of this kind must carry a sha256: a
// credential plugin receives the board's signing seed and an auth issuer
// decides who may act, so the board runs only the exact binary the operator
// approved.
func (k Kind) pinned() bool { return k == KindCredential || k == KindAuthIssuer }

// Spec is one plugin the operator runs: an entry of PACT_PLUGINS.
type Spec struct {
	// Name is how the board refers to the plugin (^[a-z][a-z0-9-]{0,62}$),
	// unique in the catalog; its logs are named plugin.<name>.
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Binary is the executable: a path relative to PACT_PLUGIN_DIR, or
	// absolute. Empty means Name.
	Binary string `json:"binary,omitempty"`
	// SHA256 is the hex SHA-256 of the binary. Required for credential and
	// authissuer plugins; a binary that does not match is never started.
	SHA256 string `json:"sha256,omitempty"`
	// Env is the plugin's whole environment (the board's own is not
	// passed). A value may name a variable of the board's environment as
	// ${NAME}, so secrets need not be written in the catalog.
	Env map[string]string `json:"env,omitempty"`
	// bundled marks an entry a variable turned on, pinned by the manifest
	// built into pact-board ([Catalog]) rather than by PACT_PLUGINS.
	bundled bool
}

var (
	pluginName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,62}$`)
	envName    = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	envRef     = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)
)

// ParseCatalog reads the value of PACT_PLUGINS: empty for no plugins, a JSON
// list of [Spec] (it starts with "["), or the path of a file holding one.
// Every problem is an InvalidRequest error that names PACT_PLUGINS, the entry
// and what is expected.
func ParseCatalog(value string) ([]Spec, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		return nil, nil
	}
	raw, source := []byte(value), "PACT_PLUGINS"
	if !strings.HasPrefix(value, "[") {
		b, err := os.ReadFile(value)
		if err != nil {
			return nil, errs.E(errs.InvalidRequest, "PACT_PLUGINS: cannot read the plugin catalog: %v "+
				"(expected a JSON list, or the path of a file holding one)", err)
		}
		raw, source = b, "PACT_PLUGINS file "+value
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var specs []Spec
	if err := dec.Decode(&specs); err != nil {
		return nil, errs.E(errs.InvalidRequest, "%s: not a JSON list of {name, kind, binary, sha256, env}: %v", source, err)
	}
	if dec.More() {
		return nil, errs.E(errs.InvalidRequest, "%s: unexpected data after the JSON list", source)
	}
	seen := map[string]bool{}
	for i := range specs {
		s := &specs[i]
		if err := s.check(); err != nil {
			return nil, errs.E(errs.InvalidRequest, "%s: plugin %d (%q): %v", source, i+1, s.Name, err)
		}
		if seen[s.Name] {
			return nil, errs.E(errs.InvalidRequest, "%s: plugin name %q appears twice", source, s.Name)
		}
		seen[s.Name] = true
	}
	return specs, nil
}

// check validates s and normalizes its fields.
func (s *Spec) check() error {
	if !pluginName.MatchString(s.Name) {
		return fmt.Errorf("name must match %s", pluginName)
	}
	switch s.Kind {
	case KindNotifier, KindCredential, KindAuthIssuer:
	default:
		return fmt.Errorf("kind %q is not notifier, credential or authissuer", s.Kind)
	}
	if s.Binary == "" {
		s.Binary = s.Name
	}
	s.SHA256 = strings.ToLower(strings.TrimSpace(s.SHA256))
	switch {
	case s.SHA256 == "" && s.Kind.pinned():
		return fmt.Errorf("%s plugins must be pinned: add \"sha256\" (sha256sum of the binary)", s.Kind)
	case s.SHA256 != "":
		if b, err := hex.DecodeString(s.SHA256); err != nil || len(b) != 32 {
			return fmt.Errorf("sha256 must be 64 hex digits (sha256sum of the binary)")
		}
	}
	for k := range s.Env {
		if !envName.MatchString(k) {
			return fmt.Errorf("env name %q is not a variable name", k)
		}
	}
	return nil
}

// environ is the plugin's environment, with ${NAME} references resolved
// through getenv.
func (s *Spec) environ(getenv func(string) string) []string {
	out := make([]string, 0, len(s.Env))
	for k, v := range s.Env {
		v = envRef.ReplaceAllStringFunc(v, func(ref string) string { return getenv(ref[2 : len(ref)-1]) })
		out = append(out, k+"="+v)
	}
	return out
}
