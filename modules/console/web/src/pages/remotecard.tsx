// A remote A2A agent's card (docs/a2a.md, "Remote agents"): an agent of
// client a2a-remote connects to nothing, the board calls it. A person
// names the card the board reads and the credentials the remote agent
// takes, which the board seals and never shows again.
import { useId, useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Alert, useAction } from "../ui";

type RemoteCard = Schemas["RemoteCard"];

export function RemoteCardForm({ agent }: { agent: string }) {
  const allowed = useCan("board-set-a2a-remote");
  const [url, setURL] = useState("");
  const [auth, setAuth] = useState("");
  const [named, setNamed] = useState<RemoteCard>();
  const [run, { busy, error }] = useAction();
  const hint = useId();
  if (!allowed) return null;
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        await run(async () => {
          const body = { card_url: url.trim(), authorization: auth.trim() };
          const r = await api.PUT("/admin/api/agents/{agent_id}/a2a-remote", { params: { path: { agent_id: agent } }, body });
          if (r.data) {
            setNamed(r.data);
            setAuth("");
          }
          return r;
        });
      }}
    >
      <h4>Remote card</h4>
      <p class="meta" id={hint}>
        {agent} is a remote A2A agent: nothing connects, the board sends it what is delegated to {agent}. Name its agent card; the board
        reads it when you save. The Authorization header is sealed and never shown again: leave it empty to keep the one set before, or
        type - to clear it.
      </p>
      <label>
        Card URL
        <input type="url" required maxLength={2000} placeholder="https://agent.example.com/.well-known/agent-card.json" aria-describedby={hint} value={url} onInput={(e) => setURL(e.currentTarget.value)} />
      </label>
      <label>
        Authorization header (optional)
        <input type="password" autocomplete="off" maxLength={4000} placeholder="Bearer …" value={auth} onInput={(e) => setAuth(e.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="submit" data-op="board-set-a2a-remote" disabled={busy}>
          Save {agent}'s card
        </button>
      </div>
      {named && (
        <p role="status">
          {agent} is {named.name}, called at {named.interface_url}; the board follows its tasks{" "}
          {named.streaming ? "by stream" : "by reading them every few seconds"}.
        </p>
      )}
      <Alert text={error} />
    </form>
  );
}
