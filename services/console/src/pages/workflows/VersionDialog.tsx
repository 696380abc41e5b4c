import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { WorkflowDetail } from "../../api/types";
import { CopyButton } from "../../ui/CopyButton";
import { Modal } from "../../ui/confirm";
import { formatTime } from "../../ui/format";
import { ErrorState, FormError, Loading } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { fetchVersion, updateWorkflow, workflowKeys } from "./queries";
import { downloadText, yamlFileName } from "./workflow-file";

/** One version's YAML; an older one can be restored, stored as the next version (nothing is lost). */
export function VersionDialog({
  workflow,
  version,
  onClose,
}: {
  workflow: WorkflowDetail;
  version: number | null;
  onClose(): void;
}) {
  return (
    <Modal open={version !== null} title={`Version ${version ?? ""}`} onClose={onClose}>
      {version === null ? null : <VersionBody workflow={workflow} version={version} onClose={onClose} />}
    </Modal>
  );
}

function VersionBody({ workflow, version, onClose }: { workflow: WorkflowDetail; version: number; onClose(): void }) {
  const queries = useQueryClient();
  const toast = useToast();
  const shown = useQuery({
    queryKey: workflowKeys.version(workflow.id, version),
    queryFn: ({ signal }) => fetchVersion(workflow.id, version, signal),
  });
  const restore = useMutation({
    mutationFn: (yaml: string) => updateWorkflow(workflow.id, yaml, workflow.version),
    onSuccess: async (stored) => {
      queries.setQueryData(workflowKeys.detail(stored.id), stored);
      await queries.invalidateQueries({ queryKey: workflowKeys.all, predicate: (q) => q.queryKey[1] !== "detail" });
      toast(
        stored.version === workflow.version
          ? `Version ${version} has the current text: nothing to restore`
          : `Restored version ${version} as version ${stored.version}`,
      );
      onClose();
    },
  });

  if (shown.isPending) return <Loading what={`Loading version ${version}`} />;
  if (shown.isError) return <ErrorState error={shown.error} retry={() => void shown.refetch()} />;
  const current = version === workflow.version;
  return (
    <div className="stack">
      <p className="muted small">
        Saved {formatTime(shown.data.updatedAt)}
        {current ? " · the current version" : null}
      </p>
      <pre className="version-yaml">{shown.data.yaml}</pre>
      <FormError error={restore.error} />
      <div className="row end">
        <CopyButton text={shown.data.yaml} label="Copy YAML" />
        <button type="button" onClick={() => downloadText(yamlFileName(workflow.name, version), shown.data.yaml)}>
          Download
        </button>
        {current || workflow.role === "viewer" ? null : (
          <button
            type="button"
            className="primary"
            disabled={restore.isPending}
            onClick={() => restore.mutate(shown.data.yaml)}
          >
            Restore as version {workflow.version + 1}
          </button>
        )}
      </div>
    </div>
  );
}
