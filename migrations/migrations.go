// Package migrations holds the board's schema as numbered SQL files. A shipped
// file is never edited: a change is a new file with the next number.
//
// Every table has one owning package. The migration that creates a table
// declares its owner in the same file:
//
//	COMMENT ON TABLE notes IS 'owner: modules/notes';
//
// core/archtest fails on a table without one, on a write by any other
// package, and on a read by another package that its allow-list does not
// give a reason for (docs/architecture.md, "Table ownership").
//
// The package embeds the files and imports nothing, so core/db can apply them
// without depending on anything above it.
package migrations

import "embed"

// Files holds every migration, applied in name order.
//
//go:embed *.sql
var Files embed.FS
