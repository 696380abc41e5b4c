/** A reused step that stands on a debugger's edit in the execution rerun (docs/rerun.md). */
export function EditedBadge() {
  return (
    <span
      className="badge edited"
      title="Reused as a debugger's set left it in the execution this one reruns: the step did not give it"
    >
      edited
    </span>
  );
}
