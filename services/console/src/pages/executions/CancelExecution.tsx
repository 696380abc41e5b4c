import { useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { CancelResponse } from "../../api/types";
import { ConfirmDialog } from "../../ui/confirm";
import { FormError } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { keys } from "./queries";

/** Cancel, after a confirmation: a cancel cannot be undone, and a running code step is killed. */
export function CancelExecution({ executionId }: { executionId: string }) {
  const [asking, setAsking] = useState(false);
  const toast = useToast();
  const queries = useQueryClient();
  const cancel = useMutation({
    mutationFn: () =>
      api<CancelResponse>("POST", `/api/console/executions/${encodeURIComponent(executionId)}/cancel`, {}),
    onSuccess: () => {
      setAsking(false);
      toast("Cancel requested: the execution stops at once");
      void queries.invalidateQueries({ queryKey: keys.execution(executionId) });
      void queries.invalidateQueries({ queryKey: keys.lists });
    },
  });
  return (
    <>
      <button type="button" className="danger" onClick={() => (cancel.reset(), setAsking(true))}>
        Cancel execution
      </button>
      <ConfirmDialog
        open={asking}
        title="Cancel this execution?"
        confirmLabel={cancel.isPending ? "Cancelling…" : "Cancel execution"}
        cancelLabel="Keep running"
        danger
        busy={cancel.isPending}
        onConfirm={() => cancel.mutate()}
        onCancel={() => setAsking(false)}
      >
        <p>
          The steps still to run will not run, a running code step is killed and pending approvals are cancelled. This
          cannot be undone.
        </p>
        <FormError error={cancel.error} />
      </ConfirmDialog>
    </>
  );
}
