/**
 * The header of a table's column of row buttons: named for screen readers, blank on screen (the buttons say what they
 * do).
 */
export function ActionsHeader({ label = "Actions" }: { label?: string }) {
  return (
    <th>
      <span className="sr-only">{label}</span>
    </th>
  );
}
