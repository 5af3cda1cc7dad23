// Settings' notification destinations: where the organization's
// notifications go besides Slack, each through the notifier plugin it
// names. Everyone signed in reads the list, which shows URL hints only;
// owners add a destination (its signing secret is shown once, as the
// server answers it once) and disable one.
import { useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, Status, useAction, useLoad } from "../ui";
import { CopyButton } from "./agents";

type Destination = Schemas["Destination"];
type Added = Schemas["AddedDestination"];

export function Destinations() {
  const list = useLoad(() => api.GET("/admin/api/destinations"), []);
  const canAdd = useCan("notify-add-destination");
  const [added, setAdded] = useState<Added>();
  const [done, setDone] = useState("");
  const items = list.data?.destinations ?? [];
  const changed = (what: string) => {
    setDone(what);
    list.reload();
  };
  return (
    <>
      <h2>Notification destinations</h2>
      <p class="meta">Besides Slack, notifications go to every destination that is not disabled, through its notifier plugin.</p>
      <p class="notice" role="status">
        {done}
      </p>
      <Status loaded={list} what="the notification destinations" />
      {list.data && items.length === 0 && <p class="empty">No destinations yet.</p>}
      <ul class="rows">
        {items.map((d) => (
          <DestinationRow key={d.id} d={d} onDone={changed} />
        ))}
      </ul>
      {added && <Secret added={added} onHide={() => setAdded(undefined)} />}
      {canAdd && (
        <AddDestination
          onAdded={(a) => {
            setAdded(a);
            changed(`Notifications now go to ${a.url_hint} through ${a.notifier}.`);
          }}
        />
      )}
    </>
  );
}

function DestinationRow({ d, onDone }: { d: Destination; onDone: (what: string) => void }) {
  const canDisable = useCan("notify-disable-destination");
  const [run, { busy, error }] = useAction();
  return (
    <li class={d.disabled_at ? "closed" : ""}>
      <span>
        <strong>{d.notifier}</strong> <code>{d.url_hint}</code> {d.disabled_at && <span class="badge">Disabled</span>}
      </span>
      <span class="meta">
        added by {d.created_by} <Ago at={d.created_at} />
        {d.has_secret ? " · signed" : " · unsigned"}
        {d.disabled_at && (
          <>
            {" "}
            · disabled by {d.disabled_by} <Ago at={d.disabled_at} />
          </>
        )}
      </span>
      {canDisable && !d.disabled_at && (
        <div class="actions">
          <ConfirmButton
            label="Disable"
            op="notify-disable-destination"
            danger
            disabled={busy}
            title={`Disable the ${d.notifier} destination?`}
            effect={
              <p>
                Stop sending notifications to {d.url_hint}: nothing more goes there, not even retries of notifications it has
                not had yet. To resume, add it again.
              </p>
            }
            confirm="Disable"
            onConfirm={async () => {
              const path = { params: { path: { destination_id: d.id } } };
              if (await run(() => api.POST("/admin/api/destinations/{destination_id}/disable", path)))
                onDone(`Notifications no longer go to ${d.url_hint}.`);
            }}
          />
        </div>
      )}
      <Alert text={error} />
    </li>
  );
}

/** Secret shows a new destination's signing secret, which is never listed again. */
function Secret({ added, onHide }: { added: Added; onHide: () => void }) {
  return (
    <div class="zone" role="region" aria-label="The new destination's secret">
      {added.secret ? (
        <>
          <p>
            The signing secret of {added.url_hint} is shown this once; give it to the receiver, which checks each delivery's
            signature with it.
          </p>
          <pre class="body">
            <code>{added.secret}</code>
          </pre>
          <div class="actions">
            <CopyButton text={added.secret} what="secret" />
            <button type="button" onClick={onHide}>
              Hide the secret
            </button>
          </div>
        </>
      ) : (
        <p>{added.url_hint} has no signing secret.</p>
      )}
    </div>
  );
}

function AddDestination({ onAdded }: { onAdded: (a: Added) => void }) {
  const [notifier, setNotifier] = useState("webhook");
  const [url, setUrl] = useState("");
  const [secret, setSecret] = useState("");
  const [run, { busy, error }] = useAction();
  return (
    <form
      class="zone"
      onSubmit={async (e) => {
        e.preventDefault();
        let got: Added | undefined;
        const body = { notifier: notifier.trim(), url: url.trim(), ...(secret ? { secret } : {}) };
        const ok = await run(async () => {
          const r = await api.POST("/admin/api/destinations", { body });
          got = r.data;
          return r;
        });
        if (ok && got) {
          onAdded(got);
          setUrl("");
          setSecret("");
        }
      }}
    >
      <h3>Add a destination</h3>
      <label>
        Notifier
        <input
          type="text"
          required
          pattern="[a-z][a-z0-9\-]{0,62}"
          aria-describedby="notifier-hint"
          value={notifier}
          onInput={(e) => setNotifier(e.currentTarget.value)}
        />
      </label>
      <p class="meta" id="notifier-hint">
        The notifier plugin's name in PACT_PLUGINS, such as webhook.
      </p>
      <label>
        URL
        <input type="url" required maxLength={2000} placeholder="https://hooks.example.com/pact" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />
      </label>
      <label>
        Secret (optional)
        <input
          type="password"
          autoComplete="off"
          maxLength={500}
          aria-describedby="secret-hint"
          value={secret}
          onInput={(e) => setSecret(e.currentTarget.value)}
        />
      </label>
      <p class="meta" id="secret-hint">
        Leave it empty and the plugin makes one (a webhook's whsec_…), shown once.
      </p>
      <div class="actions">
        <button type="submit" class="primary" data-op="notify-add-destination" disabled={busy}>
          Add destination
        </button>
      </div>
      <Alert text={error} />
    </form>
  );
}
