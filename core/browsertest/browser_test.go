package browsertest_test

import (
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/pactboard/pact/core/browsertest"
)

// clean passes axe-core with no violation at all: a language, a title, a
// main landmark, a heading and a labelled field.
const clean = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Greeter</title></head>
<body><main><h1>Greeter</h1>
<label for="name">Your name</label> <input id="name" type="text">
<label for="tone">Tone</label> <select id="tone"><option>Warm</option><option>Dry</option></select>
<button type="button" id="greet" data-op="greet">Greet</button>
<button type="button" data-op="hidden" hidden>Hidden</button>
<p id="out"></p></main>
<script>
document.getElementById('greet').addEventListener('click', () => {
  const name = document.getElementById('name').value;
  const tone = document.getElementById('tone').value === 'Dry' ? '.' : '!';
  document.getElementById('out').textContent = 'Hello, ' + name + tone;
  localStorage.setItem('greeted', name);
  document.cookie = 'greeted=' + encodeURIComponent(name) + '; path=/';
});
</script></body></html>`

// broken has the two violations issue #15's check must catch: an image
// without alt text and a field without a label.
const broken = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Broken</title></head>
<body><main><h1>Broken</h1><img src="/logo.png"><input type="text"></main></body></html>`

// folded has a field only shown once its <details> is opened, and one
// whose typed value is in no attribute.
const folded = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Folded</title></head>
<body><main><h1>Folded</h1>
<details><summary>More (a) </summary><label for="note">Note</label> <textarea id="note">kept</textarea></details>
<label for="word">Word</label> <input id="word" type="text" value="start"></main></body></html>`

func site(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(clean)) })
	mux.HandleFunc("/folded", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(folded)) })
	mux.HandleFunc("/broken", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(broken)) })
	mux.HandleFunc("/strict", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; script-src 'self'")
		_, _ = w.Write([]byte(broken))
	})
	mux.HandleFunc("/logo.png", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNotFound) })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// The driver clicks by role and name, fills by label, reads text, cookies
// and localStorage, on a page served by the test.
func TestBrowserDrivesAPage(t *testing.T) {
	srv := site(t)
	b := browsertest.Start(t)
	require.NotEmpty(t, b.Version())
	p := b.Page(1280, 800)
	require.Equal(t, http.StatusOK, p.Goto(srv.URL+"/"))
	p.Fill("Your name", "Ana")
	p.Click("button", "Greet")
	p.ExpectText("Hello, Ana!")
	require.Equal(t, "Hello, Ana!", p.Text("#out"))
	p.Select("Tone", "Dry")
	p.Click("button", "Greet")
	p.ExpectText("Hello, Ana.")
	require.Equal(t, []string{"Greet"}, p.Texts("button"))
	require.Equal(t, []string{"greet"}, p.Attrs("[data-op]", "data-op"), "visible elements only")
	require.Equal(t, []browsertest.Request{{Method: "GET", URL: srv.URL + "/", Navigation: true}}, p.Requests(),
		"the page's one request: its document (the script is inline)")
	require.Equal(t, srv.URL+"/", p.URL())
	require.Equal(t, map[string]string{"greeted": "Ana"}, p.LocalStorage())
	cookies := p.Cookies()
	require.Len(t, cookies, 1)
	require.Equal(t, "greeted", cookies[0].Name)
	require.Equal(t, "Ana", cookies[0].Value)

	// A second page is a second person: none of the first one's state.
	other := b.Page(390, 844)
	other.Goto(srv.URL + "/")
	require.Empty(t, other.LocalStorage())
	require.Empty(t, other.Cookies())
}

// Expand opens a <details> by its summary's exact text (and leaves it
// open when asked again); Value and Values read what fields hold, typed
// or not; HTML serializes the document, without what was typed.
func TestBrowserOpensDetailsAndReadsFields(t *testing.T) {
	srv := site(t)
	b := browsertest.Start(t)
	p := b.Page(1280, 800)
	p.Goto(srv.URL + "/folded")
	require.Equal(t, []string{"kept", "start"}, p.Values(), "fields in a closed <details> too")
	p.Expand("More (a)")
	p.Expand("More (a)")
	p.Fill("Note", "typed in the note")
	p.Fill("Word", "typed")
	require.Equal(t, "typed in the note", p.Value("Note"), "the field was shown: Expand opened it and left it open")
	require.Equal(t, []string{"typed in the note", "typed"}, p.Values())
	html := p.HTML()
	require.Contains(t, html, `<details open="">`)
	require.NotContains(t, html, "typed", "what a person types is in the fields, not the HTML")
}

// Screenshots are PNGs of the viewport, at phone and desktop widths.
func TestBrowserScreenshotsAtPhoneAndDesktopWidths(t *testing.T) {
	srv := site(t)
	b := browsertest.Start(t)
	p := b.Page(390, 844)
	p.Goto(srv.URL + "/")
	dir := t.TempDir()
	for _, size := range [][2]int{{390, 844}, {1280, 800}} {
		p.Resize(size[0], size[1])
		path := filepath.Join(dir, "greeter.png")
		p.Screenshot(path)
		f, err := os.Open(path)
		require.NoError(t, err)
		img, err := png.Decode(f)
		f.Close()
		require.NoError(t, err)
		require.Equal(t, size[0], img.Bounds().Dx())
		require.Equal(t, size[1], img.Bounds().Dy())
	}
}

// axe-core reports an image without alt text and a field without a label
// as serious or critical, and nothing at all on a clean page.
func TestAxeFindsViolationsAndPassesACleanPage(t *testing.T) {
	srv := site(t)
	b := browsertest.Start(t)
	p := b.Page(1280, 800)
	p.Goto(srv.URL + "/broken")
	serious := map[string]bool{}
	for _, v := range browsertest.Serious(p.Axe()) {
		serious[v.ID] = true
	}
	require.True(t, serious["image-alt"], "an <img> without alt is serious or critical")
	require.True(t, serious["label"], "an <input> without a label is serious or critical")

	p.Goto(srv.URL + "/")
	require.Empty(t, p.Axe(), "a clean page breaks no axe rule")

	// A page whose CSP forbids inline script (as the console's does) is
	// checked all the same.
	p.Goto(srv.URL + "/strict")
	serious = map[string]bool{}
	for _, v := range browsertest.Serious(p.Axe()) {
		serious[v.ID] = true
	}
	require.True(t, serious["image-alt"] && serious["label"], "axe runs under a strict CSP: %v", serious)
}
