// Package identity keeps the principals mandates name — organizations,
// people, projects, agents and agent tokens — and the kill switches, together
// with the operations people and the platform's operator perform on them.
//
// Every operation that changes something runs through the ledger: the
// change and its admin.* entry commit together, and a refusal is logged with
// its error code and changes nothing else. Every id a person names must
// belong to that person's organization; another organization's id answers
// exactly like a missing one.
package identity
