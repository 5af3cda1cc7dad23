// Times as people read them: "3 minutes ago", with the exact time on hover.
// The distance is date-fns's; the exact time is the browser's Intl.
import { formatDistanceToNow } from "date-fns";

const exact = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function Ago({ at }: { at: string | null | undefined }) {
  if (!at) return <span>—</span>;
  const d = new Date(at);
  if (Number.isNaN(d.valueOf())) return <span>{at}</span>;
  return (
    <time dateTime={at} title={exact.format(d)}>
      {formatDistanceToNow(d, { addSuffix: true })}
    </time>
  );
}
