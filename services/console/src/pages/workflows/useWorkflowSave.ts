import { useState, type RefObject } from "react";
import { useNavigate } from "react-router";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { ApiError } from "../../api/client";
import type { WorkflowDetail, WorkflowIssue } from "../../api/types";
import type { ServiceIssues } from "./problems";
import type { WorkflowEditor } from "../../editor";
import { useToast } from "../../ui/toast";
import { createWorkflow, editorPath, fetchWorkflow, updateWorkflow, workflowKeys } from "./queries";
import { fromDetail, type Arrival, type Start } from "./editor-start";
import { useLeaveGuard } from "./useLeaveGuard";

interface Options {
  start: Start;
  editor: RefObject<WorkflowEditor | null>;
  /** Before a new workflow's first save moves the page to its id: store what goes with it (the canvas layout). */
  onCreated(id: string): Promise<void>;
  /** The service found mistakes in the text it was sent, which is still the editor's. */
  onServiceIssues(answer: ServiceIssues): void;
}

/**
 * The editor's save flow: what is stored (`saved`), whether the text differs from it (`dirty`,
 * guarded on leaving), saving (a first save creates the workflow and moves to its address), a
 * newer version saved elsewhere (`conflict`: reload it, or save over it) and the service's mistakes.
 */
export function useWorkflowSave({ start, editor, onCreated, onServiceIssues }: Options) {
  const navigate = useNavigate();
  const queries = useQueryClient();
  const toast = useToast();
  const [saved, setSaved] = useState(start);
  const [dirty, setDirty] = useState(start.yaml !== start.pristine);
  const [conflict, setConflict] = useState<number | null>(null);
  const { blocker, markClean } = useLeaveGuard(dirty);
  const canEdit = saved.role !== "viewer";

  const save = useMutation({
    mutationFn: ({ yaml, baseVersion }: { yaml: string; baseVersion: number | null; thenRun: boolean }) =>
      saved.id === null || baseVersion === null ? createWorkflow(yaml) : updateWorkflow(saved.id, yaml, baseVersion),
    onSuccess: async (stored, { yaml, thenRun }) => {
      queries.setQueryData(workflowKeys.detail(stored.id), stored);
      void queries.invalidateQueries({ queryKey: workflowKeys.all, predicate: (q) => q.queryKey[1] !== "detail" });
      setConflict(null);
      if (saved.id === null) {
        await onCreated(stored.id).catch((err: Error) =>
          toast(`The canvas layout was not stored: ${err.message}`, "error"),
        );
        markClean();
        toast(`Created “${stored.name}”`);
        void navigate(editorPath(stored.id), { replace: true, state: { openRun: thenRun } satisfies Arrival });
        return;
      }
      toast(stored.version === saved.version ? "No changes to save" : `Saved version ${stored.version}`);
      setSaved(fromDetail(stored));
      // Typing may have gone on while the save was under way.
      setDirty((editor.current?.text() ?? yaml) !== stored.yaml);
    },
    onError: (err, { yaml }) => {
      if (err instanceof ApiError && err.code === "WORKFLOW_INVALID") {
        const found = (err.body.details ?? []) as WorkflowIssue[];
        const mistakes = found.length === 1 ? "a mistake" : `${found.length} mistakes`;
        if (editor.current?.showIssues(found, yaml) === false) {
          // Edited while the save was on its way: the editor's own check of the new text stands.
          toast(`Not saved: the text you saved had ${mistakes}; it has changed since, save again`, "error");
          return;
        }
        onServiceIssues({ text: yaml, issues: found });
        toast(`Not saved: the workflow has ${mistakes}, listed under the editor`, "error");
      } else if (err instanceof ApiError && err.status === 409 && typeof err.body.currentVersion === "number") {
        setConflict(err.body.currentVersion);
      } else toast(`Not saved: ${err.message}`, "error");
    },
  });

  /** Saves the editor's text on `baseVersion` (the version opened, or a conflict's to save over); null when not saved. */
  const saveNow = async (thenRun = false, baseVersion = saved.version): Promise<WorkflowDetail | null> => {
    if (!editor.current || !canEdit || save.isPending) return null;
    try {
      return await save.mutateAsync({ yaml: editor.current.text(), baseVersion, thenRun });
    } catch {
      return null;
    }
  };

  /** Drops the text on screen for the latest stored version. */
  const reload = async () => {
    if (saved.id === null) return;
    const latest = await queries.fetchQuery({
      queryKey: workflowKeys.detail(saved.id),
      queryFn: () => fetchWorkflow(saved.id!),
      staleTime: 0,
    });
    editor.current?.setText(latest.yaml);
    setSaved(fromDetail(latest));
    setDirty(false);
    setConflict(null);
    toast(`Loaded version ${latest.version}`);
  };

  return {
    saved,
    dirty,
    canEdit,
    pending: save.isPending,
    conflict,
    blocker,
    saveNow,
    reload,
    dismissConflict: () => setConflict(null),
    /** The editor's text changed: dirty unless it is what counts as nothing to save. */
    edited: (text: string) => setDirty(text !== saved.pristine),
  };
}
