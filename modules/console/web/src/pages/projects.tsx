// Projects: create one, set its production and freeze flags (each says
// what it does before it is set), and a project's notes: write, pin,
// archive and erase a version (which cannot be undone).
import { useRoute } from "preact-iso";
import { useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { useCan } from "../session";
import { Ago } from "../time";
import { Alert, ConfirmButton, Status, useAction, useLoad } from "../ui";

type Project = Schemas["Project"];
type Note = Schemas["Note"];

/** What each flag does, said before a person sets it (docs/console.md, "Projects"). */
export const productionEffect =
  "Runners never work on a production project: a Runner agent's claims, posts and messages there are refused, and no Runner can be hired into it. People and other agents work as before.";
export const freezeEffect = "Every agent call on a frozen project is refused, so nothing changes in it until a person unfreezes it.";

export function ProjectList() {
  const projects = useLoad(() => api.GET("/admin/api/projects"), []);
  const [done, setDone] = useState("");
  const changed = (what: string) => {
    setDone(what);
    projects.reload();
  };
  const list = projects.data?.projects ?? [];
  return (
    <section>
      <h1>Projects</h1>
      <CreateProject onDone={changed} />
      <h2>Your organization's projects</h2>
      <p class="notice" role="status">
        {done}
      </p>
      <Status loaded={projects} what="projects" />
      {projects.data && list.length === 0 && <p class="empty">No projects yet.</p>}
      <ul class="cards">
        {list.map((p) => (
          <li key={p.id}>
            <ProjectCard p={p} onDone={changed} />
          </li>
        ))}
      </ul>
    </section>
  );
}

function CreateProject({ onDone }: { onDone: (what: string) => void }) {
  const allowed = useCan("people-create-project");
  const [id, setId] = useState("");
  const [name, setName] = useState("");
  const [production, setProduction] = useState(false);
  const [run, { busy, error }] = useAction();
  if (!allowed) return null;
  return (
    <form
      class="filters"
      onSubmit={async (e) => {
        e.preventDefault();
        const body = { id: id.trim(), name: name.trim() || id.trim(), production };
        if (await run(() => api.POST("/admin/api/projects", { body }))) {
          setId("");
          setName("");
          setProduction(false);
          onDone(`Created project ${body.id}${production ? ", in production" : ""}.`);
        }
      }}
    >
      <h2>New project</h2>
      <label>
        Project id
        <input type="text" required pattern="[a-z0-9][a-z0-9-]{0,62}" title="1 to 63 of a-z, 0-9 and -" value={id} onInput={(e) => setId(e.currentTarget.value)} />
      </label>
      <label>
        Name
        <input type="text" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="check">
        <input type="checkbox" checked={production} onChange={(e) => setProduction(e.currentTarget.checked)} /> Production
      </label>
      <p class="meta">{productionEffect}</p>
      <div class="actions">
        <button type="submit" class="primary" data-op="people-create-project" disabled={busy}>
          Create project
        </button>
      </div>
      <Alert text={error} />
    </form>
  );
}

function ProjectCard({ p, onDone }: { p: Project; onDone: (what: string) => void }) {
  const allowed = useCan("people-update-project");
  const [run, { busy, error }] = useAction();
  const set = async (body: { production?: boolean; frozen?: boolean }, what: string) => {
    if (await run(() => api.PATCH("/admin/api/projects/{project_id}", { params: { path: { project_id: p.id } }, body }))) onDone(what);
  };
  return (
    <article class="card">
      <h3>
        {p.name} {p.production && <span class="badge warn">Production</span>} {p.frozen && <span class="badge refused">Frozen</span>}
      </h3>
      <p class="meta">
        {p.id} · {p.open_tasks} open tasks · created by {p.created_by} <Ago at={p.created_at} />
      </p>
      <p>
        <a href={`/console/projects/${p.id}`}>Notes of {p.name}</a>
      </p>
      {allowed && (
        <div class="actions">
          {p.production ? (
            <ConfirmButton
              label={`Take ${p.name} out of production`}
              op="people-update-project"
              disabled={busy}
              title={`Take ${p.name} out of production?`}
              effect={<p>Runner agents may work on {p.name} again: claim, post and message there.</p>}
              confirm="Take out of production"
              onConfirm={() => set({ production: false }, `${p.name} is no longer in production.`)}
            />
          ) : (
            <ConfirmButton
              label={`Mark ${p.name} production`}
              op="people-update-project"
              disabled={busy}
              title={`Mark ${p.name} production?`}
              effect={<p>{productionEffect}</p>}
              confirm="Mark production"
              onConfirm={() => set({ production: true }, `${p.name} is in production: Runners are refused there.`)}
            />
          )}
          {p.frozen ? (
            <ConfirmButton
              label={`Unfreeze ${p.name}`}
              op="people-update-project"
              disabled={busy}
              title={`Unfreeze ${p.name}?`}
              effect={<p>Agents' calls on {p.name} are answered again.</p>}
              confirm="Unfreeze"
              onConfirm={() => set({ frozen: false }, `${p.name} is unfrozen.`)}
            />
          ) : (
            <ConfirmButton
              label={`Freeze ${p.name}`}
              op="people-update-project"
              danger
              disabled={busy}
              title={`Freeze ${p.name}?`}
              effect={<p>{freezeEffect}</p>}
              confirm="Freeze"
              onConfirm={() => set({ frozen: true }, `${p.name} is frozen: agents' calls there are refused.`)}
            />
          )}
        </div>
      )}
      <Alert text={error} />
    </article>
  );
}

export function ProjectNotes() {
  const { params } = useRoute();
  const id = params.id ?? "";
  const path = { params: { path: { project_id: id } } };
  const notes = useLoad(() => api.GET("/admin/api/projects/{project_id}/context", path), [id]);
  const [done, setDone] = useState("");
  const changed = (what: string) => {
    setDone(what);
    notes.reload();
  };
  const list = notes.data?.notes ?? [];
  return (
    <section>
      <p>
        <a href="/console/projects">← Projects</a>
      </p>
      <h1>Notes of {id}</h1>
      <p class="muted">What the project's agents read as its standing context; pinned notes first.</p>
      <p class="notice" role="status">
        {done}
      </p>
      <Status loaded={notes} what="the notes" />
      {notes.data && list.length === 0 && <p class="empty">No notes yet.</p>}
      <ul class="cards">
        {list.map((n) => (
          <li key={n.key}>
            <NoteCard project={id} n={n} onDone={changed} />
          </li>
        ))}
      </ul>
      <WriteNote project={id} onDone={changed} />
    </section>
  );
}

function WriteNote({ project, onDone, note }: { project: string; onDone: (what: string) => void; note?: Note }) {
  const allowed = useCan("notes-write-note");
  const [key, setKey] = useState(note?.key ?? "");
  const [title, setTitle] = useState(note?.title ?? "");
  const [body, setBody] = useState(note?.body ?? "");
  const [run, { busy, error }] = useAction();
  if (!allowed) return null;
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        const k = key.trim();
        const ok = await run(() =>
          api.PUT("/admin/api/projects/{project_id}/context/{key}", {
            params: { path: { project_id: project, key: k } },
            body: { body, title: title.trim() || undefined },
          }),
        );
        if (ok) {
          if (!note) {
            setKey("");
            setTitle("");
            setBody("");
          }
          onDone(`Saved note ${k}.`);
        }
      }}
    >
      {!note && <h2>Write a note</h2>}
      {!note && (
        <label>
          Key
          <input type="text" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        </label>
      )}
      <label>
        {note ? `Title of ${note.key}` : "Title"}
        <input type="text" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </label>
      <label>
        {note ? `Text of ${note.key}` : "Text"}
        <textarea rows={5} required maxLength={20000} value={body} onInput={(e) => setBody(e.currentTarget.value)} />
      </label>
      <div class="actions">
        <button type="submit" class="primary" data-op="notes-write-note" disabled={busy}>
          {note ? `Save note ${note.key}` : "Save note"}
        </button>
      </div>
      <Alert text={error} />
    </form>
  );
}

function NoteCard({ project, n, onDone }: { project: string; n: Note; onDone: (what: string) => void }) {
  const canPin = useCan("notes-pin-note");
  const canArchive = useCan("notes-archive-note");
  const canWrite = useCan("notes-write-note");
  const [open, setOpen] = useState(false);
  const [run, { busy, error }] = useAction();
  const path = { params: { path: { project_id: project, key: n.key } } };
  return (
    <article class="card">
      <h3>
        {n.title || n.key} {n.pinned && <span class="badge">Pinned</span>} {n.archived_at && <span class="badge warn">Archived</span>}
      </h3>
      <p class="meta">
        {n.key} · version {n.version} · by {n.updated_by} <Ago at={n.updated_at} />
      </p>
      {n.body !== undefined && <pre class="body">{n.body}</pre>}
      <div class="actions">
        {canPin && !n.archived_at && (
          <button
            type="button"
            data-op={n.pinned ? "notes-unpin-note" : "notes-pin-note"}
            disabled={busy}
            onClick={async () => {
              const ok = await run(() =>
                n.pinned
                  ? api.POST("/admin/api/projects/{project_id}/context/{key}/unpin", path)
                  : api.POST("/admin/api/projects/{project_id}/context/{key}/pin", path),
              );
              if (ok) onDone(n.pinned ? `Unpinned ${n.key}.` : `Pinned ${n.key}.`);
            }}
          >
            {n.pinned ? `Unpin ${n.key}` : `Pin ${n.key}`}
          </button>
        )}
        {canArchive && !n.archived_at && (
          <ConfirmButton
            label={`Archive ${n.key}`}
            op="notes-archive-note"
            disabled={busy}
            title={`Archive ${n.key}?`}
            effect={<p>Agents no longer read {n.key} as the project's context. Its versions stay, and writing it again brings it back.</p>}
            confirm="Archive"
            onConfirm={async () => {
              if (await run(() => api.POST("/admin/api/projects/{project_id}/context/{key}/archive", path))) onDone(`Archived ${n.key}.`);
            }}
          />
        )}
      </div>
      <Alert text={error} />
      <details onToggle={(e) => setOpen(e.currentTarget.open)}>
        <summary>Versions{canWrite ? " and editing" : ""} of {n.key}</summary>
        {open && <NoteDetails project={project} n={n} onDone={onDone} />}
      </details>
    </article>
  );
}

/**
 * NoteDetails loads one note with its text (the list carries none) and its
 * versions: editing starts from the current text, and an erasure leaves
 * neither the list of versions nor the form holding the erased text.
 */
function NoteDetails({ project, n, onDone }: { project: string; n: Note; onDone: (what: string) => void }) {
  const note = useLoad(() => api.GET("/admin/api/projects/{project_id}/context/{key}", { params: { path: { project_id: project, key: n.key } } }), [project, n.key, n.version]);
  const cur = note.data?.note;
  return (
    <>
      <Status loaded={note} what="the note" />
      {cur && <WriteNote key={`${cur.version} ${cur.body ?? ""}`} project={project} note={cur} onDone={onDone} />}
      <Versions n={n} versions={note.data?.versions ?? []} onErased={(what) => {
          note.reload();
          onDone(what);
        }}
      />
    </>
  );
}

function Versions({ n, versions, onErased }: { n: Note; versions: Schemas["NoteVersion"][]; onErased: (what: string) => void }) {
  const canErase = useCan("notes-erase-version");
  const [run, { busy, error }] = useAction();
  return (
    <>
      <h4>Versions</h4>
      <ol class="rows">
        {versions.map((v) => (
          <li key={v.id}>
            <span>
              Version {v.version} by {v.updated_by} <Ago at={v.at} /> {v.erased_at && <span class="badge refused">Erased</span>}
            </span>
            {!v.erased_at && <pre class="body">{v.body}</pre>}
            {canErase && !v.erased_at && (
              <div class="actions">
                <ConfirmButton
                  label={`Erase version ${v.version} of ${n.key}`}
                  op="notes-erase-version"
                  danger
                  disabled={busy}
                  title={`Erase version ${v.version} of ${n.key}?`}
                  effect={
                    <p>
                      Its text leaves the version, the note when it is the current one, and every log entry that carried it; the log still verifies.{" "}
                      <strong>This cannot be undone.</strong>
                    </p>
                  }
                  confirm="Erase"
                  onConfirm={async () => {
                    if (await run(() => api.POST("/admin/api/context-versions/{version_id}/erase", { params: { path: { version_id: v.id } } })))
                      onErased(`Erased version ${v.version} of ${n.key}.`);
                  }}
                />
              </div>
            )}
          </li>
        ))}
      </ol>
      <Alert text={error} />
    </>
  );
}
