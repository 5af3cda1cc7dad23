// Package identity keeps the principals mandates name — organizations,
// people, projects, agents and agent tokens — and the kill switches: their
// creation, the reads and row-level writes the modules make of them (only
// this package writes its tables; docs/architecture.md, "Table ownership"),
// authentication of agents and people, and Act, which runs a person's
// operation and logs it. Administering them is modules/people's.
//
// Every operation that changes something runs through the ledger: the
// change and its admin.* entry commit together, and a refusal is logged with
// its error code and changes nothing else. Every id a person names must
// belong to that person's organization; another organization's id answers
// exactly like a missing one.
package identity
