package docs

import (
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
	"golang.org/x/crypto/bcrypt"

	"github.com/pactboard/pact/core/boot"
	"github.com/pactboard/pact/sdk/npmtest"
)

// No container engine can pull an image on the machines this project is
// built on (docs/containers.md, "What is checked"), so these tests read the
// packaging files instead: as Compose reads them, as pact-board would load
// the environment they give, and through linters nobody here wrote.

// tracked lists the files git tracks under the repository root matching
// the pathspecs, as paths relative to the root.
func tracked(t *testing.T, pathspecs ...string) []string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", "..", "ls-files", "--"}, pathspecs...)...).Output()
	require.NoError(t, err)
	return strings.Fields(string(out))
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(raw)
}

// compose is what the tests read of compose.yaml.
type compose struct {
	Services map[string]service `yaml:"services"`
	Volumes  map[string]any     `yaml:"volumes"`
}

type service struct {
	Image       string            `yaml:"image"`
	Build       any               `yaml:"build"`
	DependsOn   any               `yaml:"depends_on"`
	Environment map[string]string `yaml:"environment"`
	EnvFile     []struct {
		Path     string `yaml:"path"`
		Required *bool  `yaml:"required"`
	} `yaml:"env_file"`
	Ports       []string `yaml:"ports"`
	Volumes     []string `yaml:"volumes"`
	Command     []string `yaml:"command"`
	NetworkMode string   `yaml:"network_mode"`
	Profiles    []string `yaml:"profiles"`
	Healthcheck *struct {
		Test []string `yaml:"test"`
	} `yaml:"healthcheck"`
}

func readCompose(t *testing.T) compose {
	t.Helper()
	var c compose
	require.NoError(t, yaml.Unmarshal([]byte(readFile(t, "../compose.yaml")), &c))
	require.NotEmpty(t, c.Services)
	return c
}

// interpolation is ${NAME}, ${NAME:-default}, ${NAME-default},
// ${NAME:?error} or ${NAME?error}, as Compose reads them.
var interpolation = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}`)

// tb is what interpolate needs of a test: require's, and Helper.
type tb interface {
	require.TestingT
	Helper()
}

// interpolate replaces the ${…} of s as Compose would with env as the
// variables of .env and the shell; a required one that is missing fails.
func interpolate(t tb, s string, env map[string]string) string {
	t.Helper()
	return interpolation.ReplaceAllStringFunc(s, func(m string) string {
		p := interpolation.FindStringSubmatch(m)
		v, set := env[p[1]]
		empty := !set || (strings.HasPrefix(p[2], ":") && v == "")
		switch strings.TrimPrefix(p[2], ":") {
		case "-":
			if empty {
				return p[3]
			}
		case "?":
			require.False(t, empty, "compose.yaml requires %s: %s", p[1], p[3])
		}
		return v
	})
}

// boardEnv is the board's environment as Compose gives it: the lines of
// .env (env_file), then its environment entries, interpolated with .env.
func boardEnv(t tb, s service, dotenv map[string]string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range s.EnvFile {
		if f.Path == ".env" {
			for k, v := range dotenv {
				out[k] = v
			}
		}
	}
	for k, v := range s.Environment {
		out[k] = interpolate(t, v, dotenv)
	}
	return out
}

// signingKey stands for the one a person puts in .env.
const signingKey = "an-example-signing-key-of-at-least-32-characters"

// The board under compose.yaml is one a person can sign in to: its
// environment, with only the signing key in .env, is one pact-board loads,
// serving the console and the Admin API and printing the one-time link
// (for the owner --demo creates), at the URL its published port answers,
// on the postgres service once that is healthy.
func TestComposeServesTheConsoleAndPrintsTheLink(t *testing.T) {
	c := readCompose(t)
	board, ok := c.Services["board"]
	require.True(t, ok, "compose.yaml has no board service")

	for name, s := range c.Services {
		require.True(t, s.Image != "" || s.Build != nil, "service %s has neither image nor build", name)
		if s.Build != nil {
			require.Equal(t, ".", s.Build, "service %s builds the repository's Dockerfile", name)
			require.FileExists(t, "../Dockerfile")
		}
	}

	// Every variable the board is given is one it reads: a misspelt one
	// would be silently ignored.
	known := map[string]bool{}
	for _, v := range boot.Vars() {
		known[v.Name] = true
	}
	for k := range board.Environment {
		require.True(t, known[k], "compose.yaml sets %s for the board, which pact-board does not read", k)
	}
	for _, m := range interpolation.FindAllStringSubmatch(readFile(t, "../compose.yaml"), -1) {
		require.True(t, known[m[1]], "compose.yaml reads %s from .env, which pact-board does not read", m[1])
	}
	require.Len(t, board.EnvFile, 1, "the board takes .env, so every variable of .env.example can be set there")
	require.Equal(t, ".env", board.EnvFile[0].Path)
	require.NotNil(t, board.EnvFile[0].Required)
	require.False(t, *board.EnvFile[0].Required, "a missing .env is for ${PACT_SIGNING_KEY:?…} to explain")

	// Compose refuses to start without the signing key, saying where to set it.
	require.Panics(t, func() { boardEnv(panicT{}, board, map[string]string{}) })

	env := boardEnv(t, board, map[string]string{"PACT_SIGNING_KEY": signingKey})
	cfg, err := boot.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	_, err = boot.SigningKey(cfg)
	require.NoError(t, err)
	// cmd/pact-board/console.go's consoleLink prints the link only then.
	require.Equal(t, boot.RoleBoard, cfg.Role)
	require.True(t, cfg.AdminAPI, "the console needs the Admin API on the board")
	require.True(t, cfg.ConsoleLocalSignin, "with DATABASE_URL the link is off unless compose turns it on")
	require.Equal(t, []string{"--demo"}, board.Command, "--demo creates the first owner the link signs in")
	require.False(t, cfg.Embedded())

	// The board listens on every interface of its container, and the
	// host's loopback port of PACT_PUBLIC_URL leads to it.
	require.Equal(t, "0.0.0.0", cfg.Host)
	pub, err := url.Parse(cfg.PublicURL)
	require.NoError(t, err)
	require.Contains(t, board.Ports, "127.0.0.1:"+pub.Port()+":"+strconv.Itoa(cfg.Port))
	for _, p := range board.Ports {
		require.True(t, strings.HasPrefix(p, "127.0.0.1:"), "port %s is published beyond this machine", p)
	}

	// DATABASE_URL is the postgres service's, which the board waits for.
	db, err := url.Parse(cfg.DatabaseURL)
	require.NoError(t, err)
	pg, ok := c.Services[db.Hostname()]
	require.True(t, ok, "DATABASE_URL names %s, no service of compose.yaml", db.Hostname())
	pass, _ := db.User.Password()
	require.Equal(t, pg.Environment["POSTGRES_USER"], db.User.Username())
	require.Equal(t, pg.Environment["POSTGRES_PASSWORD"], pass)
	require.Equal(t, pg.Environment["POSTGRES_DB"], strings.TrimPrefix(db.Path, "/"))
	require.NotNil(t, pg.Healthcheck)
	require.Equal(t, map[string]any{db.Hostname(): map[string]any{"condition": "service_healthy"}}, board.DependsOn)
	for _, v := range pg.Volumes {
		volume, _, _ := strings.Cut(v, ":")
		require.Contains(t, c.Volumes, volume)
	}
}

// panicT turns require's failures into panics, for a check that must fail.
type panicT struct{}

func (panicT) Errorf(format string, args ...any) { panic("failed") }
func (panicT) FailNow()                          { panic("failed") }
func (panicT) Helper()                           {}

// dotenvBlock reads the first ```dotenv block of a page: the lines a person
// puts in .env.
func dotenvBlock(t *testing.T, page string) map[string]string {
	t.Helper()
	m := regexp.MustCompile("(?s)```dotenv\n(.*?)```").FindStringSubmatch(page)
	require.NotNil(t, m, "no ```dotenv block")
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(m[1]), "\n") {
		k, v, ok := strings.Cut(line, "=")
		require.True(t, ok, "line %q", line)
		out[k] = v
	}
	return out
}

// dex is what the tests read of deploy/dex.yaml.
type dex struct {
	Issuer  string `yaml:"issuer"`
	Storage struct {
		Type string `yaml:"type"`
	} `yaml:"storage"`
	Web struct {
		HTTP string `yaml:"http"`
	} `yaml:"web"`
	StaticClients []struct {
		ID           string   `yaml:"id"`
		Secret       string   `yaml:"secret"`
		RedirectURIs []string `yaml:"redirectURIs"`
	} `yaml:"staticClients"`
	EnablePasswordDB bool `yaml:"enablePasswordDB"`
	StaticPasswords  []struct {
		Email string `yaml:"email"`
		Hash  string `yaml:"hash"`
	} `yaml:"staticPasswords"`
}

// The oidc profile runs Dex as the board's issuer: the lines
// docs/containers.md puts in .env make a board whose issuer, console
// client and Admin API audience are Dex's, at a loopback URL reached the
// same way from the browser and from the board, and Dex sends the console
// back to the board's callback; its user's password is the one documented.
func TestComposeOIDCProfileIsDex(t *testing.T) {
	c := readCompose(t)
	d, ok := c.Services["dex"]
	require.True(t, ok, "compose.yaml has no dex service")
	require.Equal(t, []string{"oidc"}, d.Profiles)
	require.Regexp(t, `^ghcr\.io/dexidp/dex:v[0-9]+\.[0-9]+\.[0-9]+$`, d.Image, "a pinned release of Dex")
	require.Equal(t, "service:board", d.NetworkMode, "localhost must be Dex for the board as for the browser")
	require.Len(t, d.Volumes, 1)
	src, dst, ok := strings.Cut(strings.TrimSuffix(d.Volumes[0], ":ro"), ":")
	require.True(t, ok)
	require.Equal(t, "./deploy/dex.yaml", src)
	require.Equal(t, []string{"dex", "serve", dst}, d.Command)

	var conf dex
	require.NoError(t, yaml.Unmarshal([]byte(readFile(t, "../deploy/dex.yaml")), &conf))
	require.Equal(t, "memory", conf.Storage.Type)
	require.Len(t, conf.StaticClients, 1)
	client := conf.StaticClients[0]

	page := readFile(t, "containers.md")
	dotenv := dotenvBlock(t, page)
	require.Equal(t, "oidc", dotenv["COMPOSE_PROFILES"])
	dotenv["PACT_SIGNING_KEY"] = signingKey
	env := boardEnv(t, c.Services["board"], dotenv)
	cfg, err := boot.Load(func(k string) string { return env[k] })
	require.NoError(t, err)
	require.Equal(t, conf.Issuer, cfg.AuthIssuer)
	require.Equal(t, client.ID, cfg.ConsoleClientID)
	require.Equal(t, client.Secret, cfg.ConsoleClientSecret)
	require.Equal(t, client.ID, cfg.AdminAudience, "Dex's access tokens name the client as their audience")
	require.False(t, cfg.AdminRequireMFA, "Dex's tokens carry no amr")
	require.Equal(t, []string{cfg.PublicURL + "/console/auth/callback"}, client.RedirectURIs)

	// plugins/auth-oidc takes plain http only from a loopback host; Dex
	// listens in the board's network on the port the board publishes.
	iss, err := url.Parse(conf.Issuer)
	require.NoError(t, err)
	require.True(t, iss.Hostname() == "localhost" || net.ParseIP(iss.Hostname()).IsLoopback(), "issuer %s", conf.Issuer)
	_, listen, err := net.SplitHostPort(conf.Web.HTTP)
	require.NoError(t, err)
	require.Equal(t, iss.Port(), listen)
	require.Contains(t, c.Services["board"].Ports, "127.0.0.1:"+iss.Port()+":"+listen)

	require.True(t, conf.EnablePasswordDB)
	require.Len(t, conf.StaticPasswords, 1)
	user := conf.StaticPasswords[0]
	require.Contains(t, page, "`"+user.Email+"` and the password `password`")
	require.NoError(t, bcrypt.CompareHashAndPassword([]byte(user.Hash), []byte("password")))
}

// developerTools are the directories of cmd/ the image leaves out, each
// with the reason.
var developerTools = map[string]string{
	"benchratio":   "prints the speed goals' table of make bench",
	"pact-faults":  "the fault harness of make faults",
	"pact-proofs":  "runs the recorded mutations of make proofs",
	"pact-mutants": "runs gremlins over every package for make mutants",
}

// bundledGlobs are the plugins make build pins into pact-board.
var bundledGlobs = []string{"plugins/auth-*", "plugins/notifier-*", "plugins/credential-*"}

// The image holds every command of cmd/ but the developers' tools, and
// every plugin make build bundles; it starts pact-board. A command added
// to cmd/ fails here until the Dockerfile builds it or it is named a
// developers' tool.
func TestDockerfileHoldsEveryCommand(t *testing.T) {
	df := readFile(t, "../Dockerfile")
	m := regexp.MustCompile(`(?m)^ARG COMMANDS="([^"]*)"$`).FindStringSubmatch(df)
	require.NotNil(t, m, "the Dockerfile has no ARG COMMANDS=\"…\"")
	commands := strings.Fields(m[1])
	require.Contains(t, df, `for c in $COMMANDS; do go build -trimpath -o "/out/$c" "./cmd/$c"`)

	dirs := map[string]bool{}
	for _, f := range tracked(t, "cmd/*.go") {
		dirs[strings.Split(f, "/")[1]] = true
	}
	var want []string
	for d := range dirs {
		if _, dev := developerTools[d]; !dev {
			want = append(want, d)
		}
		require.Regexp(t, `(?m)^package main$`, mainPackage(t, d), "cmd/%s", d)
	}
	for d := range developerTools {
		require.True(t, dirs[d], "developerTools names cmd/%s, which does not exist", d)
	}
	slices.Sort(want)
	slices.Sort(commands)
	require.Equal(t, want, commands, "the Dockerfile's COMMANDS against cmd/ less the developers' tools")

	require.Contains(t, df, "for d in "+strings.Join(bundledGlobs, " ")+"; do")
	makefile := readFile(t, "../Makefile")
	for _, g := range bundledGlobs {
		require.Contains(t, makefile, "bin/"+g, "make build pins %s", g)
		matches, err := filepath.Glob(filepath.Join("..", g))
		require.NoError(t, err)
		require.NotEmpty(t, matches, g)
		for _, p := range matches {
			require.Regexp(t, `(?m)^package main$`, readFile(t, filepath.Join(p, "main.go")), p)
		}
	}
	require.Contains(t, df, "> cmd/pact-board/bundled/plugins.json", "the pins go into the manifest pact-board embeds")
	require.Less(t, strings.Index(df, "plugins.json"), strings.Index(df, "for c in $COMMANDS"),
		"pact-board is built after the pins")

	require.Contains(t, df, "COPY --from=build /out/ /usr/local/bin/")
	require.Contains(t, df, `ENTRYPOINT ["/usr/local/bin/pact-board"]`)
	ignore := strings.Fields(readFile(t, "../.dockerignore"))
	for _, p := range []string{".env", ".git", ".pact", "bin"} {
		require.Contains(t, ignore, p, ".dockerignore keeps %s out of the build", p)
	}
}

// mainPackage returns the source of cmd/<dir>'s main.go.
func mainPackage(t *testing.T, dir string) string {
	t.Helper()
	return readFile(t, filepath.Join("..", "cmd", dir, "main.go"))
}

// compose.yaml passes dclint (the Compose specification's schema and
// dclint's rules, warnings included) and the Dockerfile passes
// dockerfile-utils lint; both fail on a broken file, so they can fail.
func TestContainerFilesPassTheirLinters(t *testing.T) {
	dir := npmtest.Install(t, os.DirFS("lint/containers"), "pact-containers-lint", "dclint/package.json")
	bin := func(name string) string { return filepath.Join(dir, "node_modules", ".bin", name) }
	dclint := func(file string) (string, error) {
		out, err := exec.Command(bin("dclint"), "--max-warnings", "0", "--color", "false", file).CombinedOutput()
		return string(out), err
	}
	dockerfile := func(file string) (string, error) {
		out, err := exec.Command(bin("dockerfile-utils"), "lint", file).CombinedOutput()
		return string(out), err
	}

	out, err := dclint("../compose.yaml")
	require.NoError(t, err, "dclint compose.yaml:\n%s", out)
	out, err = dockerfile("../Dockerfile")
	require.NoError(t, err, "dockerfile-utils lint Dockerfile:\n%s", out)
	require.Empty(t, strings.TrimSpace(out))

	tmp := t.TempDir()
	badCompose := filepath.Join(tmp, "compose.yaml")
	require.NoError(t, os.WriteFile(badCompose, []byte("services:\n  board:\n    imag: x\n"), 0o644))
	out, err = dclint(badCompose)
	require.Error(t, err, "dclint passed a service with a misspelt key:\n%s", out)
	badDockerfile := filepath.Join(tmp, "Dockerfile")
	require.NoError(t, os.WriteFile(badDockerfile, []byte("FROM debian:bookworm-slim\nCOPY onlyone\n"), 0o644))
	out, err = dockerfile(badDockerfile)
	require.Error(t, err, "dockerfile-utils passed COPY with one argument:\n%s", out)
}
