package board

import "github.com/pactboard/pact/core/db"

// store holds the board's SQL: the files named store*.go are the only ones
// of the module that do (docs/architecture.md, "A service and a store per
// module"). Each file speaks one placeholder dialect: pgx's $n, for the
// statements sent apart from their arguments and the steps of pipelined
// round trips (core/db), or bun's ?.
type store struct{ db *db.DB }
