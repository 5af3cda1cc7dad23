// The account: the organization's language (owners) and the person's own
// (anyone, for themselves), and sign-up for an account that is no person
// yet, offered only when the board has it on (people-signup-status); should
// it close meanwhile, people-signup refuses signup_closed and the form
// gives way to the board's message.
import { useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Alert, Status, useAction, useLoad } from "../ui";

type Org = Schemas["OrgSettings"];

const languages: { value: Org["language"]; label: string }[] = [
  { value: "en", label: "English" },
  { value: "th", label: "ไทย (Thai)" },
];

/** Languages: what notifications and emails are written in. */
export function Languages({ org, onChanged }: { org: Org; onChanged: () => void }) {
  const canOrg = useCan("people-update-org");
  const me = useLoad(() => api.GET("/admin/api/me"), []);
  const [orgLang, setOrgLang] = useState(org.language);
  const [mine, setMine] = useState<string>();
  const [done, setDone] = useState("");
  const [run, { busy, error }] = useAction();
  const own = mine ?? me.data?.language ?? "";
  return (
    <>
      <h2>Language</h2>
      <p class="notice" role="status">
        {done}
      </p>
      <p>
        The organization's notices are written in <strong>{languages.find((l) => l.value === org.language)?.label ?? org.language}</strong>
        {me.data && (
          <>
            ; you read them in <strong>{languages.find((l) => l.value === me.data?.reads_in)?.label ?? me.data.reads_in}</strong>
          </>
        )}
        .
      </p>
      {canOrg && (
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await run(() => api.PUT("/admin/api/org", { body: { language: orgLang } }))) {
              setDone("Saved the organization's language.");
              onChanged();
              me.reload();
            }
          }}
        >
          <label for="org-language">The organization's language</label>
          {/* The select stands outside its label, whose name would otherwise take in the chosen option's text. */}
          <select id="org-language" value={orgLang} onChange={(e) => setOrgLang(e.currentTarget.value as Org["language"])}>
              {languages.map((l) => (
                <option key={l.value} value={l.value}>
                  {l.label}
                </option>
              ))}
            </select>
          <button type="submit" data-op="people-update-org" disabled={busy}>
            Save the organization's language
          </button>
        </form>
      )}
      <Status loaded={me} what="your settings" />
      {me.data && (
        <form
          class="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await run(() => api.PATCH("/admin/api/me", { body: { language: own || null } }))) {
              setDone("Saved your language.");
              me.reload();
            }
          }}
        >
          <label for="own-language">Your language</label>
          <select id="own-language" value={own} onChange={(e) => setMine(e.currentTarget.value)}>
              <option value="">As the organization's</option>
              {languages.map((l) => (
                <option key={l.value} value={l.value}>
                  {l.label}
                </option>
              ))}
            </select>
          <button type="submit" data-op="people-update-me" disabled={busy}>
            Save my language
          </button>
        </form>
      )}
      <Alert text={error} />
    </>
  );
}

/** The terms version a sign-up accepts, recorded with the new organization. */
export const termsVersion = "2026-01";

/**
 * Signup: an account that is no person yet makes its own organization,
 * offered only when the board has sign-up on (people-signup-status).
 */
export function Signup() {
  const status = useLoad(() => api.GET("/admin/api/signup"), []);
  if (!status.data?.open) return null;
  return <SignupForm />;
}

function SignupForm() {
  const [org, setOrg] = useState("");
  const [name, setName] = useState("");
  const [terms, setTerms] = useState(false);
  const [closed, setClosed] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  if (closed)
    return (
      <p class="muted" role="status">
        {closed}
      </p>
    );
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError("");
        try {
          const r = await api.POST("/admin/api/signup", {
            body: { org_name: org.trim(), display_name: name.trim(), accept_terms: terms, terms_version: termsVersion },
          });
          if (r.response.ok) return location.reload();
          const err = r.error as { error?: string; message?: string } | undefined;
          if (err?.error === "signup_closed") setClosed(err.message ?? "Sign-up is closed on this board.");
          else setError(err?.message ?? `The server answered ${r.response.status}.`);
        } catch {
          setError("The server could not be reached.");
        } finally {
          setBusy(false);
        }
      }}
    >
      <h2>Or start your own organization</h2>
      <label>
        Organization name
        <input type="text" required maxLength={80} value={org} onInput={(e) => setOrg(e.currentTarget.value)} />
      </label>
      <label>
        Your name
        <input type="text" required maxLength={80} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="check">
        <input type="checkbox" required checked={terms} onChange={(e) => setTerms(e.currentTarget.checked)} /> I accept the board's terms (version{" "}
        {termsVersion})
      </label>
      <div class="actions">
        <button type="submit" class="primary" data-op="people-signup" disabled={busy}>
          Start the organization
        </button>
      </div>
      <Alert text={error} />
    </form>
  );
}
