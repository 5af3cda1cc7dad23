import "./app.css";
import { render } from "preact";
import { useCallback, useEffect, useState } from "preact/hooks";
import { LocationProvider, Route, Router, useLocation } from "preact-iso";
import { consoleApi, errorText, setCsrf, type Account, type Person } from "./client";
import { LiveContext, NoticeChanged, NoticeContext, PersonContext } from "./session";
import { Bell, Notifications } from "./pages/notifications";
import { NeedsYou } from "./pages/needs";
import { TaskList, TaskDetail } from "./pages/tasks";
import { PactList, PactDetail } from "./pages/pacts";
import { MandateList } from "./pages/mandates";
import { Overview } from "./pages/overview";
import { Credentials } from "./pages/credentials";
import { Settings } from "./pages/settings";
import { AgentList } from "./pages/agents";
import { Log } from "./pages/log";
import { ProjectList, ProjectNotes } from "./pages/projects";
import { RoleList } from "./pages/roles";
import { Welcome } from "./pages/welcome";

type Boot =
  | { kind: "loading" }
  | { kind: "signin" }
  | { kind: "error"; text: string }
  | { kind: "in"; person: Person }
  | { kind: "account"; account: Account };

function SignIn() {
  const next = location.pathname + location.search;
  return (
    <main class="signin" id="main">
      <h1>PACT Board</h1>
      <p>Sign in to see what needs you.</p>
      <p>
        <a class="button primary" href={`/console/auth/login?next=${encodeURIComponent(next)}`}>
          Sign in
        </a>
      </p>
      <p class="muted">
        Running the board yourself? The operator's terminal may show a one-time local sign-in link.
      </p>
    </main>
  );
}

const nav = [
  { href: "/console/", label: "Needs you", match: (p: string) => p === "/console/" || p === "/console" },
  { href: "/console/overview", label: "Overview", match: (p: string) => p.startsWith("/console/overview") },
  { href: "/console/tasks", label: "Tasks", match: (p: string) => p.startsWith("/console/tasks") },
  { href: "/console/pacts", label: "Pacts", match: (p: string) => p.startsWith("/console/pacts") },
  { href: "/console/mandates", label: "Mandates", match: (p: string) => p.startsWith("/console/mandates") },
  { href: "/console/credentials", label: "Credentials", match: (p: string) => p.startsWith("/console/credentials") },
  { href: "/console/agents", label: "Agents", match: (p: string) => p.startsWith("/console/agents") },
  { href: "/console/projects", label: "Projects", match: (p: string) => p.startsWith("/console/projects") },
  { href: "/console/roles", label: "Roles", match: (p: string) => p.startsWith("/console/roles") },
  { href: "/console/log", label: "Log", match: (p: string) => p.startsWith("/console/log") },
  { href: "/console/settings", label: "Settings", match: (p: string) => p.startsWith("/console/settings") },
];

function Shell({ person }: { person: Person }) {
  const { path } = useLocation();
  const [live, setLive] = useState(0);
  const [notices, setNotices] = useState(0);
  const tell = useCallback(() => setNotices((n) => n + 1), []);
  const [signOutError, setSignOutError] = useState("");
  useEffect(() => {
    // The server pushes an event for every notice addressed to this
    // person: needs-you when it asks them to act (pages that show
    // questions and approvals refetch on each), notice for the others; the
    // bell and Notifications refetch on both.
    const events = new EventSource("/admin/api/live");
    const bump = () => setLive((n) => n + 1);
    events.addEventListener("needs-you", bump);
    events.addEventListener("needs-you", tell);
    events.addEventListener("notice", tell);
    // On every (re)connection the pages read again what they show: a
    // notice raised before the stream opened, or while it was down, sends
    // this page no event (the server subscribes before it answers).
    events.addEventListener("open", () => {
      bump();
      tell();
    });
    return () => events.close();
  }, [tell]);
  useEffect(() => {
    document.getElementById("main")?.focus();
  }, [path]);
  async function signOut() {
    try {
      const { response, error } = await consoleApi.POST("/console/auth/logout");
      if (!response.ok) return setSignOutError(errorText(error, response));
      location.reload();
    } catch (e) {
      setSignOutError(errorText(e));
    }
  }
  return (
    <PersonContext.Provider value={person}>
      <LiveContext.Provider value={live}>
      <NoticeContext.Provider value={notices}>
      <NoticeChanged.Provider value={tell}>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <nav aria-label="Console">
            <span class="brand">PACT Board</span>
            <ul>
              {nav.map((n) => (
                <li key={n.href}>
                  <a href={n.href} aria-current={n.match(path) ? "page" : undefined}>
                    {n.label}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <div class="who">
            <Bell />
            <span>
              {person.name} <span class="role">{person.role}</span>
            </span>
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </div>
        </header>
        {signOutError && (
          <p class="error" role="alert">
            Sign out failed: {signOutError}
          </p>
        )}
        <main id="main" tabIndex={-1}>
          <Router>
            <Route path="/console" component={NeedsYou} />
            <Route path="/console/" component={NeedsYou} />
            <Route path="/console/overview" component={Overview} />
            <Route path="/console/tasks" component={TaskList} />
            <Route path="/console/tasks/:id" component={TaskDetail} />
            <Route path="/console/pacts" component={PactList} />
            <Route path="/console/pacts/:id" component={PactDetail} />
            <Route path="/console/mandates" component={MandateList} />
            <Route path="/console/credentials" component={Credentials} />
            <Route path="/console/agents" component={AgentList} />
            <Route path="/console/projects" component={ProjectList} />
            <Route path="/console/projects/:id" component={ProjectNotes} />
            <Route path="/console/roles" component={RoleList} />
            <Route path="/console/log" component={Log} />
            <Route path="/console/settings" component={Settings} />
            <Route path="/console/notifications" component={Notifications} />
            <Route default component={NotFound} />
          </Router>
        </main>
      </NoticeChanged.Provider>
      </NoticeContext.Provider>
      </LiveContext.Provider>
    </PersonContext.Provider>
  );
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        The console has no such page. <a href="/console/">Go to Needs you</a>.
      </p>
    </section>
  );
}

function App() {
  const [boot, setBoot] = useState<Boot>({ kind: "loading" });
  useEffect(() => {
    consoleApi.GET("/console/session").then(
      ({ data, error, response }) => {
        if (data) {
          setCsrf(data.csrf);
          if (data.person) setBoot({ kind: "in", person: data.person });
          else if (data.account) setBoot({ kind: "account", account: data.account });
          else setBoot({ kind: "signin" });
        } else if (response.status === 401) setBoot({ kind: "signin" });
        else setBoot({ kind: "error", text: errorText(error, response) });
      },
      (e: unknown) => setBoot({ kind: "error", text: errorText(e) }),
    );
  }, []);
  switch (boot.kind) {
    case "loading":
      return <p class="boot">Loading the console…</p>;
    case "signin":
      return <SignIn />;
    case "error":
      return (
        <main class="signin" id="main">
          <h1>PACT Board</h1>
          <p class="error" role="alert">
            The console could not start: {boot.text}
          </p>
        </main>
      );
    case "account":
      return <Welcome account={boot.account} />;
    case "in":
      return (
        <LocationProvider>
          <Shell person={boot.person} />
        </LocationProvider>
      );
  }
}

const root = document.getElementById("app");
if (root) {
  root.textContent = "";
  render(<App />, root);
}
