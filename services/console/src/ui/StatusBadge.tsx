/** An execution's or step's status as a coloured badge; the colour is named by a class per status. */
export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge status-${status.toLowerCase()}`}>{status.replaceAll("_", " ")}</span>;
}
