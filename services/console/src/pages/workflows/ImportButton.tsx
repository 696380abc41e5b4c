import { useRef } from "react";
import { useNavigate } from "react-router";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ApiError } from "../../api/client";
import { useToast } from "../../ui/toast";
import { createWorkflow, workflowKeys } from "./queries";

/** The service refuses bodies over 1 MB; a bigger file is refused here with a clearer word. */
const MAX_BYTES = 1_000_000;

/**
 * Stores a `.yaml` file as a new workflow. A file with mistakes opens in the editor, unsaved, with
 * its problems shown, rather than being refused with a list the person cannot act on here.
 */
export function ImportButton() {
  const input = useRef<HTMLInputElement>(null);
  const navigate = useNavigate();
  const toast = useToast();
  const queries = useQueryClient();
  const importFile = useMutation({
    mutationFn: async (file: File) => {
      const yaml = await file.text();
      try {
        return { created: await createWorkflow(yaml) };
      } catch (err) {
        if (err instanceof ApiError && err.code === "WORKFLOW_INVALID") return { invalid: yaml };
        throw err;
      }
    },
    onSuccess: async (result, file) => {
      if ("invalid" in result) {
        toast(`${file.name} has mistakes: fix them in the editor, then save`, "error");
        void navigate("/workflows/new", { state: { yaml: result.invalid, fileName: file.name } });
        return;
      }
      await queries.invalidateQueries({ queryKey: workflowKeys.all });
      toast(`Imported “${result.created.name}” from ${file.name}`);
    },
    onError: (err, file) => toast(`${file.name} was not imported: ${err.message}`, "error"),
  });

  return (
    <>
      <input
        ref={input}
        type="file"
        accept=".yaml,.yml,application/yaml,text/yaml"
        hidden
        aria-label="Import a workflow file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = "";
          if (!file) return;
          if (file.size > MAX_BYTES) toast(`${file.name} is over 1 MB, the most a workflow may be`, "error");
          else importFile.mutate(file);
        }}
      />
      <button
        type="button"
        disabled={importFile.isPending}
        onClick={() => input.current?.click()}
        title="Store a .yaml file as a new workflow"
      >
        {importFile.isPending ? "Importing…" : "Import .yaml"}
      </button>
    </>
  );
}
