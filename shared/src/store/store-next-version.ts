import { CasConflictError } from "../errors/index";
import { nextWorkflowVersion } from "./new-workflow-record";
import type { Store } from "./port";
import { storeWorkflowUpdate } from "./workflow-writes";

/**
 * Stores an edited workflow as the next version of workflow `workflowId`, if that workflow is
 * stored and still `ownerId`'s (one that changed hands is not edited on the old owner's behalf);
 * text equal to the stored one stores nothing. Returns the version the text now is, or null when
 * there is no such workflow. Earlier versions the record has no room for are dropped, and a workflow too large even
 * alone is refused (storeWorkflowUpdate).
 *
 * A concurrent write (another rerun's edit, a save) is read again and the text stored over it: the edit was checked
 * against the execution it reruns, not made on the version stored, so no edit is lost by going on top; text that
 * became the stored one meanwhile (the same edit sent twice at once) stores nothing again (docs/rerun.md).
 */
export async function storeNextVersion(
  store: Store,
  workflowId: string,
  ownerId: string,
  edited: { yaml: string; workflow: { name: string } },
): Promise<number | null> {
  for (;;) {
    const current = await store.workflows.get(workflowId);
    if (!current || current.value.ownerId !== ownerId) return null;
    if (current.value.yaml === edited.yaml) return current.value.version;
    const next = nextWorkflowVersion(current.value, edited);
    try {
      await storeWorkflowUpdate(store, next, current.version);
      return next.version;
    } catch (err) {
      if (!(err instanceof CasConflictError)) throw err;
    }
  }
}
