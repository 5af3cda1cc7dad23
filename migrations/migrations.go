// Package migrations holds the board's schema as numbered SQL files. A shipped
// file is never edited: a change is a new file with the next number.
//
// The package embeds the files and imports nothing, so core/db can apply them
// without depending on anything above it.
package migrations

import "embed"

// Files holds every migration, applied in name order.
//
//go:embed *.sql
var Files embed.FS
