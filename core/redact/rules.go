package redact

import "regexp"

// rule finds secrets: the whole match, or, when secret is not 0, the
// submatch it numbers (the context around it, a header's name or a URL's
// user, is kept).
type rule struct {
	re     *regexp.Regexp
	secret int
}

// secretWord is the end of a name that holds a secret: DB_PASSWORD,
// client_secret, aws_secret_access_key, GITHUB_TOKEN, _authToken. A name
// must end with one, so tokens, secretary and max_tokens are left alone.
const secretWord = `(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|` +
	`account[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|token)`

// secretName is a whole name ending in a secret word; the prefix runs over
// word characters, dots and dashes because \b finds no boundary after `_`.
const secretName = `[A-Za-z0-9_.-]*?` + secretWord

// marked is the first alternative of a value found by its context: a value
// already redacted is the mark alone, so redacting again changes nothing.
var marked = regexp.QuoteMeta(Mark) + `|`

// rules are lookup tables, never written after start-up. Each reads the
// original text, so no rule's replacement can hide a secret from another,
// and their order does not matter. Go's regexp is RE2, so every rule runs in
// time linear in its input whatever the text.
var rules = []rule{
	{regexp.MustCompile(`(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----`), 0},
	{regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}`), 0},                          // Anthropic, OpenAI
	{regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}`), 0},                      // GitHub tokens
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`), 0},                                  // GitHub fine-grained
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), 0},                                   // AWS access key ids
	{regexp.MustCompile(`\bxox[abeprs](?:\.xox[abeprs])?-[A-Za-z0-9-]{10,}`), 0},               // Slack tokens
	{regexp.MustCompile(`\bxapp-[A-Za-z0-9-]{10,}`), 0},                                        // Slack app-level tokens
	{regexp.MustCompile(`\bpact_[A-Za-z0-9_-]{20,}`), 0},                                       // PACT agent tokens
	{regexp.MustCompile(`\bpcs_[A-Za-z0-9_-]{20,}`), 0},                                        // PACT setup codes: redeemable for a token
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`), 0}, // JWTs
	{regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`), 0},                      // Stripe secret and restricted keys
	{regexp.MustCompile(`\bwhsec_[A-Za-z0-9+/=]{16,}`), 0},                                     // Stripe webhook secrets
	{regexp.MustCompile(`\bgl(?:pat|ptt|dt|rt|cbt|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}`), 0},  // GitLab tokens
	{regexp.MustCompile(`\bGR1348941[A-Za-z0-9_-]{20,}`), 0},                                   // GitLab runner registration
	{regexp.MustCompile(`\bAIza[A-Za-z0-9_-]{35}`), 0},                                         // Google API keys
	{regexp.MustCompile(`\bya29\.[A-Za-z0-9_-]{20,}`), 0},                                      // Google OAuth access tokens
	{regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}`), 0},                                           // npm
	{regexp.MustCompile(`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`), 0},                        // PyPI
	{regexp.MustCompile(`\bSK[0-9a-fA-F]{32}\b`), 0},                                           // Twilio API keys
	{regexp.MustCompile(`\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`), 0},                    // SendGrid
	{regexp.MustCompile(`\bdo[opr]_v1_[a-f0-9]{64}`), 0},                                       // DigitalOcean
	{regexp.MustCompile(`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`), 0},                            // Shopify
	{regexp.MustCompile(`\bhv[sb]\.[A-Za-z0-9_-]{24,}`), 0},                                    // HashiCorp Vault
	{regexp.MustCompile(`\bdapi[a-f0-9]{32}`), 0},                                              // Databricks
	{regexp.MustCompile(`\bgl(?:c|sa)_[A-Za-z0-9_+/=-]{32,}`), 0},                              // Grafana
	{regexp.MustCompile(`\bkey-[0-9a-f]{32}\b`), 0},                                            // Mailgun
	{regexp.MustCompile(`\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}`), 0},                          // Brevo (Sendinblue)
	{regexp.MustCompile(`\blin_api_[A-Za-z0-9]{40}`), 0},                                       // Linear
	{regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`), 0},                                           // Hugging Face
	// A Slack webhook URL is its own credential: keep the host, drop the path.
	{regexp.MustCompile(`(?i)(\bhooks\.slack\.com/(?:services|workflows|triggers)/)([A-Za-z0-9/_+-]{8,})`), 2},
	{regexp.MustCompile(`(?i)(\bBearer\s+)([A-Za-z0-9._~+/-]{16,}=*)`), 2},
	{regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)([^\s@/]+)@`), 2}, // URL passwords
}

// secretKey is a structured value's key whose value is replaced whole.
var secretKey = regexp.MustCompile(`(?i)^(?:` + secretName + `|authorization)$`)

// namedRule finds a secret by the name before it: context matches the name
// and its separator, value (anchored) the secret right after. The two are
// separate so that a value holding another name (password= api_key=x) does
// not hide that name's own value: contexts are found on their own, never
// inside one another's matches.
type namedRule struct {
	context *regexp.Regexp
	value   *regexp.Regexp
}

// valueWindow bounds how far a value is matched from its name, so that many
// names inside one long value cost linear time; a value that fills the
// window runs on to the next whitespace.
const valueWindow = 256

var namedRules = []namedRule{
	// Whatever follows an Authorization header's scheme (Basic, Digest, …) is
	// the credential; "basic" alone is too common a word to key on.
	{regexp.MustCompile(`(?i)\bauthorization\b(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?(?:(?:basic|bearer|digest|token|apikey)\s+)?`),
		regexp.MustCompile(`^(?:` + marked + `[^\s"'\\,;]{6,})`)},
	// Assignments, env lines, YAML and JSON written as text: the name may be
	// quoted ("password": "x", or escaped once inside a JSON string).
	{regexp.MustCompile(`(?i)\b` + secretName + `\b(?:\\?["'])?\s*[=:]\s*`),
		regexp.MustCompile(`^(?:` + marked + `"[^"]*"|'[^']*'|[^\s,;&]+)`)},
}
