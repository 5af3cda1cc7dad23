// Notifications: the person's inbox (GET /admin/api/me/notifications),
// newest first, in three tabs — For me (unread), Waiting on you (what asks
// them to act and is still open) and Everything — with Mark read on each
// unread notice and Mark all read. It refetches on every live event.
import { useContext, useRef, useState } from "preact/hooks";
import { api, type Schemas } from "../client";
import { NoticeChanged, NoticeContext } from "../session";
import { Ago } from "../time";
import { Alert, Status, useAction, useLoad } from "../ui";

type Item = Schemas["Item"];
type Filter = "unread" | "waiting" | "all";

const tabs: { filter: Filter; label: string; empty: string }[] = [
  { filter: "unread", label: "For me", empty: "Nothing unread." },
  { filter: "waiting", label: "Waiting on you", empty: "Nothing waits on you." },
  { filter: "all", label: "Everything", empty: "No notifications yet." },
];

const kinds: Record<string, string> = {
  approval_needed: "Approval needed",
  deferred: "Deferred to people",
  question: "Question",
  task_closed: "Task closed",
  awaiting_session: "Waiting for a session",
  brief: "Brief",
  expiring: "Expires soon",
  expired: "Expired",
  message: "Message",
  pact_decision: "Pact decision",
  pact_unread: "Unread pact message",
  pact_stuck: "Webhook switched off",
};

/** kindLabel names a notice's kind for a person. */
export function kindLabel(kind: string): string {
  return kinds[kind] ?? kind;
}

export function Notifications() {
  const notices = useContext(NoticeContext);
  const changed = useContext(NoticeChanged);
  const [tab, setTab] = useState(0);
  const [before, setBefore] = useState<number[]>([]);
  const current = tabs[tab]!;
  const filter = current.filter;
  const cursor = before.length ? before[before.length - 1] : 0;
  const list = useLoad(
    () => api.GET("/admin/api/me/notifications", { params: { query: { filter, before: cursor || undefined } } }),
    [filter, cursor, notices],
  );
  const [run, action] = useAction();
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const items: Item[] = list.data?.items ?? [];
  const choose = (i: number) => {
    setTab(i);
    setBefore([]);
    refs.current[i]?.focus();
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === "ArrowRight") choose((tab + 1) % tabs.length);
    else if (e.key === "ArrowLeft") choose((tab + tabs.length - 1) % tabs.length);
    else if (e.key === "Home") choose(0);
    else if (e.key === "End") choose(tabs.length - 1);
  };
  const markRead = async (id: number) => {
    if (await run(() => api.POST("/admin/api/me/notifications/{notification_id}/read", { params: { path: { notification_id: id } } })))
      changed();
  };
  const markAll = async () => {
    const upTo = items[0]?.id ?? 0;
    if (await run(() => api.POST("/admin/api/me/notifications/read", { body: { up_to: upTo } }))) changed();
  };
  const unread = items.some((it) => !it.read_at);
  return (
    <section>
      <h1>Notifications</h1>
      <div role="tablist" aria-label="Which notifications" class="tabs" onKeyDown={onKey}>
        {tabs.map((t, i) => (
          <button
            key={t.filter}
            type="button"
            role="tab"
            id={`tab-${t.filter}`}
            aria-selected={i === tab}
            aria-controls="notices"
            tabIndex={i === tab ? 0 : -1}
            ref={(el) => {
              refs.current[i] = el;
            }}
            onClick={() => choose(i)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id="notices" aria-labelledby={`tab-${filter}`}>
        <Status loaded={list} what="notifications" />
        <Alert text={action.error} />
        {unread && (
          <p>
            <button type="button" data-op="notify-mark-all-notifications-read" disabled={action.busy} onClick={markAll}>
              Mark all read
            </button>
          </p>
        )}
        {list.data && items.length === 0 && <p class="empty">{current.empty}</p>}
        <ul class="notices">
          {items.map((it) => (
            <li key={it.id} class={it.read_at ? "notice read" : "notice unread"}>
              <p class="meta">
                <span class="kind">{kindLabel(it.kind)}</span>
                {it.waiting && <span class="badge">Waiting on you</span>}
                {!it.read_at && <span class="badge">Unread</span>} · <Ago at={it.created_at} />
              </p>
              <h2 class="notice-title">
                {it.task_id ? <a href={`/console/tasks/${it.task_id}`}>{it.title}</a> : it.title}
              </h2>
              {it.detail && <p class="notice-detail">{it.detail}</p>}
              {!it.read_at && (
                <button
                  type="button"
                  data-op="notify-mark-notification-read"
                  disabled={action.busy}
                  onClick={() => markRead(it.id)}
                  aria-label={`Mark read: ${it.title}`}
                >
                  Mark read
                </button>
              )}
            </li>
          ))}
        </ul>
        {(before.length > 0 || list.data?.next) && (
          <nav aria-label="Pages" class="pages">
            {before.length > 0 && (
              <button type="button" onClick={() => setBefore(before.slice(0, -1))}>
                Newer
              </button>
            )}
            {list.data?.next && (
              <button type="button" onClick={() => setBefore([...before, list.data!.next!])}>
                Older
              </button>
            )}
          </nav>
        )}
      </div>
    </section>
  );
}

/** Bell is the header's link to Notifications with the unread count, live. */
export function Bell() {
  const notices = useContext(NoticeContext);
  const counts = useLoad(() => api.GET("/admin/api/me/notifications/counts"), [notices]);
  const unread = counts.data?.unread ?? 0;
  return (
    <a href="/console/notifications" class="bell" aria-label={`Notifications, ${unread} unread`}>
      <svg aria-hidden="true" viewBox="0 0 24 24" width="20" height="20">
        <path
          fill="currentColor"
          d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z"
        />
      </svg>
      <span class="count" data-unread={unread}>
        {unread}
      </span>
    </a>
  );
}
