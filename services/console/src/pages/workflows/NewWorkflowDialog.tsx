import { Link } from "react-router";
import { Modal } from "../../ui/confirm";
import { BLANK, EXAMPLES } from "./examples";

/** Picks what a new workflow starts from; the editor opens with it, and nothing is stored until Save. */
export function NewWorkflowDialog({ open, onClose }: { open: boolean; onClose(): void }) {
  return (
    <Modal open={open} title="New workflow" onClose={onClose}>
      <p className="muted">Start from a blank file or from an example; nothing is stored until you save.</p>
      <div className="template-grid">
        {[BLANK, ...EXAMPLES].map((template) => (
          <Link key={template.key} to={`/workflows/new?example=${template.key}`} className="template-card">
            <strong>{template.title}</strong>
            <span className="muted small">{template.summary}</span>
          </Link>
        ))}
      </div>
    </Modal>
  );
}
