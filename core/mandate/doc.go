// Package mandate is PACT Board's authority: signed links that say which
// agent may do what, for how much, until when, and on whose behalf.
//
// A mandate is one link. A root is issued by a person (issuer_kind "human")
// to an agent; every further link is issued by the agent holding its parent
// to another agent, and may only narrow what it received: a scope covered by
// the parent's, limits no higher than the parent's, one delegation fewer, an
// expiry no later, and never more than [MaxDepth] links below the root. A
// [Chain] is the path from a root to the link an agent presents, root first;
// its ids become the mandate_chain of every log entry the call writes.
//
// Every link is signed by the board (Ed25519, see [Keyring]) over its
// canonical JSON, and the database refuses any edit to the signed columns, so
// a link read back is the link that was issued. Limits are aggregate budgets:
// an amount spent through a chain counts against every link above that limits
// the key ([Service.Consume]), so children split from one parent share its
// ceiling.
//
// Verification is never cached. [Service.Verify] walks the whole chain in the
// caller's transaction on every call, because the answer can change between
// two calls without the chain itself changing: a person revokes a link
// anywhere above (which silently kills everything below it), a link expires,
// an agent moves organization, or the keyring drops the key that signed it.
// A cache would keep honouring authority that a person has already taken
// back; one recursive query per call is cheap enough that there is nothing to
// gain by risking it.
//
// The package refuses with [errs.Error] codes only: chain_broken,
// mandate_revoked, mandate_expired, scope_exceeded, limit_exceeded,
// delegation_exhausted, not_found and invalid_request; anything else is
// Internal.
package mandate
