package redact

import "regexp"

type rule struct {
	re   *regexp.Regexp
	repl string
}

// secretWord is the end of a name that holds a secret: DB_PASSWORD,
// client_secret, aws_secret_access_key, GITHUB_TOKEN, _authToken. A name
// must end with one, so tokens, secretary and max_tokens are left alone.
const secretWord = `(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|secret[_-]?key|private[_-]?key|` +
	`account[_-]?key|access[_-]?token|auth[_-]?token|refresh[_-]?token|token)`

// secretName is a whole name ending in a secret word; the prefix runs over
// word characters, dots and dashes because \b finds no boundary after `_`.
const secretName = `[A-Za-z0-9_.-]*?` + secretWord

// rules are applied in order; each is a lookup table, never written after
// start-up. Go's regexp is RE2, so every rule runs in time linear in its
// input whatever the text.
var rules = []rule{
	{regexp.MustCompile(`(?s)-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----`), Mark},
	{regexp.MustCompile(`\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{16,}`), Mark},                          // Anthropic, OpenAI
	{regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}`), Mark},                      // GitHub tokens
	{regexp.MustCompile(`\bgithub_pat_[A-Za-z0-9_]{20,}`), Mark},                                  // GitHub fine-grained
	{regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`), Mark},                                   // AWS access key ids
	{regexp.MustCompile(`\bxox[abeprs](?:\.xox[abeprs])?-[A-Za-z0-9-]{10,}`), Mark},               // Slack tokens
	{regexp.MustCompile(`\bxapp-[A-Za-z0-9-]{10,}`), Mark},                                        // Slack app-level tokens
	{regexp.MustCompile(`\bpact_[A-Za-z0-9_-]{20,}`), Mark},                                       // PACT agent tokens
	{regexp.MustCompile(`\bpcs_[A-Za-z0-9_-]{20,}`), Mark},                                        // PACT setup codes: redeemable for a token
	{regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}`), Mark}, // JWTs
	{regexp.MustCompile(`\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`), Mark},                      // Stripe secret and restricted keys
	{regexp.MustCompile(`\bwhsec_[A-Za-z0-9+/=]{16,}`), Mark},                                     // Stripe webhook secrets
	{regexp.MustCompile(`\bgl(?:pat|ptt|dt|rt|cbt|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,}`), Mark},  // GitLab tokens
	{regexp.MustCompile(`\bGR1348941[A-Za-z0-9_-]{20,}`), Mark},                                   // GitLab runner registration
	{regexp.MustCompile(`\bAIza[A-Za-z0-9_-]{35}`), Mark},                                         // Google API keys
	{regexp.MustCompile(`\bya29\.[A-Za-z0-9_-]{20,}`), Mark},                                      // Google OAuth access tokens
	{regexp.MustCompile(`\bnpm_[A-Za-z0-9]{36}`), Mark},                                           // npm
	{regexp.MustCompile(`\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`), Mark},                        // PyPI
	{regexp.MustCompile(`\bSK[0-9a-fA-F]{32}\b`), Mark},                                           // Twilio API keys
	{regexp.MustCompile(`\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}`), Mark},                    // SendGrid
	{regexp.MustCompile(`\bdo[opr]_v1_[a-f0-9]{64}`), Mark},                                       // DigitalOcean
	{regexp.MustCompile(`\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}`), Mark},                            // Shopify
	{regexp.MustCompile(`\bhv[sb]\.[A-Za-z0-9_-]{24,}`), Mark},                                    // HashiCorp Vault
	{regexp.MustCompile(`\bdapi[a-f0-9]{32}`), Mark},                                              // Databricks
	{regexp.MustCompile(`\bgl(?:c|sa)_[A-Za-z0-9_+/=-]{32,}`), Mark},                              // Grafana
	{regexp.MustCompile(`\bkey-[0-9a-f]{32}\b`), Mark},                                            // Mailgun
	{regexp.MustCompile(`\bxkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}`), Mark},                          // Brevo (Sendinblue)
	{regexp.MustCompile(`\blin_api_[A-Za-z0-9]{40}`), Mark},                                       // Linear
	{regexp.MustCompile(`\bhf_[A-Za-z0-9]{30,}`), Mark},                                           // Hugging Face
	// A Slack webhook URL is its own credential: keep the host, drop the path.
	{regexp.MustCompile(`(?i)(\bhooks\.slack\.com/(?:services|workflows|triggers)/)[A-Za-z0-9/_+-]{8,}`), "${1}" + Mark},
	{regexp.MustCompile(`(?i)(\bBearer\s+)[A-Za-z0-9._~+/-]{16,}=*`), "${1}" + Mark},
	// Whatever follows an Authorization header's scheme (Basic, Digest, …) is
	// the credential; "basic" alone is too common a word to key on.
	{regexp.MustCompile(`(?i)(\bauthorization\b(?:\\?["'])?\s*[:=]\s*(?:\\?["'])?(?:basic|bearer|digest|token|apikey)?\s*)[^\s"'\\,;]{6,}`), "${1}" + Mark},
	{regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://[^\s:/@]+:)[^\s@/]+@`), "${1}" + Mark + "@"}, // URL passwords
	// Assignments, env lines, YAML and JSON written as text: the name may be
	// quoted ("password": "x", or escaped once inside a JSON string).
	{regexp.MustCompile(`(?i)(\b` + secretName + `\b(?:\\?["'])?\s*[=:]\s*)("[^"]*"|'[^']*'|[^\s,;&]+)`), "${1}" + Mark},
}

// secretKey is a structured value's key whose value is replaced whole.
var secretKey = regexp.MustCompile(`(?i)^(?:` + secretName + `|authorization)$`)
