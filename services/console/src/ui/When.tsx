import { formatAgo, formatTime } from "./format";

/**
 * A moment in a list: "3 min ago" (`ago`) or the date and time, the exact time in its title;
 * `missing` (muted) where there is none.
 */
export function When({ at, ago = false, missing = "—" }: { at: number | null; ago?: boolean; missing?: string }) {
  if (at === null) return <span className="muted">{missing}</span>;
  return (
    <time dateTime={new Date(at).toISOString()} title={formatTime(at)}>
      {ago ? formatAgo(at) : formatTime(at)}
    </time>
  );
}
