/** Marks a step test's approval: a request from one step run alone in the editor, not from a production run. */
export function StepTestBadge() {
  return (
    <span className="badge" title="From a step test (Run this step in the editor), not from a production run">
      step test
    </span>
  );
}
