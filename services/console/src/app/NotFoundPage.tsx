import { Link } from "react-router";

export function NotFoundPage() {
  return (
    <div className="state empty">
      <strong>There is no page here.</strong>
      <div className="muted">
        The address may be mistyped or out of date. Go to <Link to="/workflows">Workflows</Link> or{" "}
        <Link to="/executions">Executions</Link>.
      </div>
    </div>
  );
}
