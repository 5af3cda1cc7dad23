package main

import (
	"embed"
	"errors"
	"io/fs"

	"github.com/pactboard/pact/core/pluginhost"
)

// bundledFiles holds the pins of the plugins make build built with this
// binary (cmd/pact-board/bundled/README.md). The directory, not the file,
// is embedded, so a fresh clone, which has no plugins.json, still builds.
//
//go:embed bundled
var bundledFiles embed.FS

// bundledManifest returns the embedded pins; none when the board was built
// without make build.
func bundledManifest() ([]pluginhost.Spec, error) {
	raw, err := bundledFiles.ReadFile("bundled/plugins.json")
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return pluginhost.ParseManifest(raw)
}
