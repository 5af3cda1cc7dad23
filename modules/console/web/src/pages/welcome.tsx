// Welcome: an account signed in through the OpenID provider that is no
// person of this board yet. An owner adds people by email; the account
// becomes that person by accepting the invitation here (the Admin API's
// invitations take any signed-in account).
import { api, consoleApi, errorText, type Account } from "../client";
import { Ago } from "../time";
import { Alert, Status, useAction, useLoad } from "../ui";
import { useState } from "preact/hooks";
import { Signup } from "./account";

export function Welcome({ account }: { account: Account }) {
  const invitations = useLoad(() => api.GET("/admin/api/invitations"), []);
  const [run, { busy, error }] = useAction();
  const [signOutError, setSignOutError] = useState("");
  async function accept(humanId: string) {
    if (await run(() => api.POST("/admin/api/invitations/{human_id}/accept", { params: { path: { human_id: humanId } } })))
      location.reload();
  }
  async function signOut() {
    try {
      const { response, error } = await consoleApi.POST("/console/auth/logout");
      if (!response.ok) return setSignOutError(errorText(error, response));
      location.reload();
    } catch (e) {
      setSignOutError(errorText(e));
    }
  }
  const list = invitations.data?.invitations ?? [];
  return (
    <main class="signin" id="main">
      <h1>PACT Board</h1>
      <p>
        You are signed in as <strong>{account.email || "an account without an email"}</strong>, who is not yet a
        person of this board.
      </p>
      <Status loaded={invitations} what="your invitations" />
      {invitations.data &&
        (list.length === 0 ? (
          <p>
            No invitation is waiting for this email. Ask an owner of your organization to add you with{" "}
            {account.email ? <strong>{account.email}</strong> : "your email"} (Settings, People), then reload this
            page.
          </p>
        ) : (
          <>
            <h2>Invitations</h2>
            <ul class="cards">
              {list.map((inv) => (
                <li key={inv.human_id} class="card">
                  <p>
                    <strong>{inv.org.name}</strong> invited you as <strong>{inv.name}</strong> ({inv.role}),{" "}
                    <Ago at={inv.invited_at} />.
                  </p>
                  <p class="muted">Accepting makes this account that person, for good: an account is one person.</p>
                  <button type="button" class="primary" data-op="people-accept-invitation" disabled={busy} onClick={() => accept(inv.human_id)}>
                    Accept and join {inv.org.name}
                  </button>
                </li>
              ))}
            </ul>
          </>
        ))}
      <Alert text={error} />
      <Signup />
      <p>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </p>
      <Alert text={signOutError} />
    </main>
  );
}
