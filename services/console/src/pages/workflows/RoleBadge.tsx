import type { WorkflowRole } from "../../api/types";

/** Yours, or shared with you and how far you may change it. */
export function RoleBadge({ role }: { role: WorkflowRole }) {
  if (role === "owner") return <span className="badge role-owner">owner</span>;
  return (
    <span
      className="badge role-shared"
      title={role === "editor" ? "Shared with you: you may edit and run it" : "Shared with you: you may only view it"}
    >
      shared · {role}
    </span>
  );
}
