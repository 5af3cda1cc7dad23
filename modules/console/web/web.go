// Package web is the browser side of PACT Board's web console: the built
// page, script and styles under dist/, embedded so that pact-board serves
// them without Node at run time. The sources are in src/ and build.mjs
// turns them into dist/ (make console); TestBuiltConsoleIsCommitted fails
// when the committed dist/ is stale. See README.md beside this file.
package web

import (
	"embed"
	"io/fs"
)

//go:embed dist
var dist embed.FS

// Assets returns the built console rooted at dist: index.html, which the
// server answers for every client-side route under /console/, and
// assets/app.js and assets/app.css, served under /console/assets/.
func Assets() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // dist is embedded above, so it is always there
	}
	return sub
}
