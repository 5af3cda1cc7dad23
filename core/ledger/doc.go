// Package ledger is the board's append-only log. Every write the board makes
// lands here as an entry in a SHA-256 hash chain: one chain per project, and
// one per organization for entries that name no project, so writes in
// different projects never queue behind each other.
//
// An entry's payload is redacted, hashed and stored apart from the entry, so
// it can be erased (PDPA) while every hash still verifies. The database
// refuses UPDATE, DELETE and TRUNCATE on entries (migration 003), and a
// unique (chain_key, prev_hash) makes a forked chain impossible to store.
//
// Record is how every operation reaches the log: the state change and its
// entry commit together, and a refusal is logged with its error code in a
// transaction of its own, so a refused call changes nothing but the log.
package ledger
