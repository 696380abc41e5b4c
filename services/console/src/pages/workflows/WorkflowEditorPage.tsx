import { useEffect, useRef, useState } from "react";
import { Link, useLocation, useNavigate, useParams, useSearchParams } from "react-router";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError } from "../../api/client";
import type { WorkflowDetail, WorkflowIssue, WorkflowRole } from "../../api/types";
import type { WorkflowEditor, WorkflowOutline } from "../../editor";
import { shortcutLabel, useShortcut } from "../../app/shortcuts";
import { ConfirmDialog } from "../../ui/confirm";
import { ErrorState, Loading } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { CanvasPane } from "./CanvasPane";
import { templateByKey } from "./examples";
import type { Positions } from "./layout-positions";
import { ProblemsPanel } from "./ProblemsPanel";
import { createWorkflow, editorPath, fetchWorkflow, updateWorkflow, workflowKeys } from "./queries";
import { RoleBadge } from "./RoleBadge";
import { RunDialog } from "./RunDialog";
import { SplitView } from "./SplitView";
import { StepPanel } from "./StepPanel";
import { useEditorCanvas } from "./useEditorCanvas";
import { useEditorModule, type EditorModule } from "./useEditorModule";
import { useLeaveGuard } from "./useLeaveGuard";
import { YamlEditor } from "./YamlEditor";
import "./workflows.css";

/** What the editor opens with: a stored workflow, or (id null) a new one that is not stored yet. */
interface Start {
  id: string | null;
  name: string;
  yaml: string;
  version: number | null;
  role: WorkflowRole;
  /** The text that counts as "nothing to save": a template is, an imported file with mistakes is not. */
  pristine: string;
  /** Where a person placed steps on the canvas. */
  positions: Positions;
}

/** What navigating here may carry: an imported file with mistakes, or "open the run form" after a first save. */
interface Arrival {
  yaml?: string;
  fileName?: string;
  openRun?: boolean;
}

const fromDetail = (w: WorkflowDetail): Start => ({
  id: w.id,
  name: w.name,
  yaml: w.yaml,
  version: w.version,
  role: w.role,
  pristine: w.yaml,
  positions: w.layout.positions,
});

/**
 * `/workflows/new` and `/workflows/:id`: the YAML editor, with save, run and versions. Both routes
 * resolve to this one component, which React keeps mounted across them; the key starts afresh
 * when the workflow changes (a first save moves `/new` to the new id).
 */
export default function WorkflowEditorPage() {
  const { id } = useParams();
  return <WorkflowEditorLoader key={id ?? "new"} id={id} />;
}

function WorkflowEditorLoader({ id }: { id: string | undefined }) {
  const location = useLocation();
  const [search] = useSearchParams();
  const { module, error: moduleError } = useEditorModule();
  const detail = useQuery({
    queryKey: workflowKeys.detail(id ?? ""),
    queryFn: ({ signal }) => fetchWorkflow(id!, signal),
    enabled: id !== undefined,
  });
  // The editor keeps what it opened with: a later refetch of the detail must not replace the person's text.
  const [start, setStart] = useState<Start | null>(null);

  useEffect(() => {
    if (start) return;
    if (id === undefined) {
      const arrival = (location.state ?? {}) as Arrival;
      const template = templateByKey(search.get("example"));
      const yaml = arrival.yaml ?? template.yaml;
      setStart({
        id: null,
        name: arrival.fileName ?? "New workflow",
        yaml,
        version: null,
        role: "owner",
        pristine: arrival.yaml === undefined ? yaml : "",
        positions: {},
      });
    } else if (detail.data) setStart(fromDetail(detail.data));
  }, [id, detail.data, start, location.state, search]);

  if (moduleError) return <ErrorState error={moduleError} retry={() => window.location.reload()} />;
  if (detail.isError && !start) return <ErrorState error={detail.error} retry={() => void detail.refetch()} />;
  if (!start || !module) return <Loading what={start ? "Loading the editor" : "Loading the workflow"} />;
  return <EditorScreen start={start} module={module} />;
}

function EditorScreen({ start, module }: { start: Start; module: EditorModule }) {
  const navigate = useNavigate();
  const location = useLocation();
  const queries = useQueryClient();
  const toast = useToast();
  const editor = useRef<WorkflowEditor | null>(null);

  const [saved, setSaved] = useState(start);
  const [dirty, setDirty] = useState(start.yaml !== start.pristine);
  const [issues, setIssues] = useState<WorkflowIssue[] | null>(null);
  const [issuesFromService, setIssuesFromService] = useState(false);
  const [conflict, setConflict] = useState<number | null>(null);
  const [runOutline, setRunOutline] = useState<WorkflowOutline | null>(null);
  const { blocker, markClean } = useLeaveGuard(dirty);
  const canEdit = saved.role !== "viewer";
  const canvas = useEditorCanvas({
    editor,
    text: start.yaml,
    positions: start.positions,
    workflowId: saved.id,
    canEdit,
  });
  const [canvasOpen, setCanvasOpen] = useState(true);

  const save = useMutation({
    mutationFn: ({ yaml, baseVersion }: { yaml: string; baseVersion: number | null; thenRun: boolean }) =>
      saved.id === null || baseVersion === null ? createWorkflow(yaml) : updateWorkflow(saved.id, yaml, baseVersion),
    onSuccess: async (stored, { yaml, thenRun }) => {
      queries.setQueryData(workflowKeys.detail(stored.id), stored);
      void queries.invalidateQueries({ queryKey: workflowKeys.all, predicate: (q) => q.queryKey[1] !== "detail" });
      setConflict(null);
      if (saved.id === null) {
        await canvas
          .storeLayoutFor(stored.id)
          .catch((err: Error) => toast(`The canvas layout was not stored: ${err.message}`, "error"));
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
        setIssues(found);
        setIssuesFromService(true);
        toast(`Not saved: the workflow has ${mistakes}, listed under the editor`, "error");
      } else if (err instanceof ApiError && err.status === 409 && typeof err.body.currentVersion === "number") {
        setConflict(err.body.currentVersion);
      } else toast(`Not saved: ${err.message}`, "error");
    },
  });

  const saveNow = async (thenRun = false, baseVersion = saved.version): Promise<WorkflowDetail | null> => {
    if (!editor.current || !canEdit || save.isPending) return null;
    try {
      return await save.mutateAsync({ yaml: editor.current.text(), baseVersion, thenRun });
    } catch {
      return null;
    }
  };

  const openRun = (yaml: string) => setRunOutline(module.describeWorkflow(yaml));

  const run = async () => {
    if (!canEdit || save.isPending) return;
    if (!dirty && saved.id !== null) return openRun(saved.yaml);
    // The service runs what is stored: the text on screen is saved first.
    const stored = await saveNow(true);
    if (stored && saved.id !== null) openRun(stored.yaml);
  };

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

  // A first save that asked to run lands here with the run form to open.
  useEffect(() => {
    if (!(location.state as Arrival | null)?.openRun) return;
    openRun(saved.yaml);
    void navigate(location.pathname, { replace: true, state: null });
    // Once, on arrival.
  }, []);

  const modal = runOutline !== null || blocker.state === "blocked";
  useShortcut("mod+s", () => void saveNow(), canEdit && !modal);
  useShortcut("mod+Enter", () => void run(), canEdit && !modal);

  const onChange = (text: string) => {
    setDirty(text !== saved.pristine);
    setIssuesFromService(false);
    canvas.onText(text);
  };

  return (
    <div className="editor-page">
      <div className="page-head editor-head">
        <Link to="/workflows" className="muted">
          Workflows
        </Link>
        <span className="muted" aria-hidden="true">
          /
        </span>
        <h1 className="editor-title">{saved.name}</h1>
        <span className="badge">{saved.version === null ? "not saved yet" : `v${saved.version}`}</span>
        {saved.role === "owner" ? null : <RoleBadge role={saved.role} />}
        {dirty ? (
          <span className="unsaved" role="status">
            unsaved
          </span>
        ) : null}
        <div className="spacer" />
        <button
          type="button"
          aria-pressed={canvasOpen}
          onClick={() => setCanvasOpen(!canvasOpen)}
          title="Show or hide the canvas beside the YAML"
        >
          Canvas
        </button>
        {saved.id === null ? null : (
          <Link
            to={`${editorPath(saved.id)}/versions`}
            className="button"
            title="Every saved version, and what changed"
          >
            Versions
          </Link>
        )}
        <button
          type="button"
          onClick={() => void run()}
          disabled={!canEdit || save.isPending}
          title={`Run (${shortcutLabel("mod+Enter")}); saves first`}
        >
          Run
        </button>
        <button
          type="button"
          className="primary"
          onClick={() => void saveNow()}
          disabled={!canEdit || save.isPending}
          title={`Save (${shortcutLabel("mod+s")})`}
        >
          {save.isPending ? "Saving…" : "Save"}
        </button>
      </div>

      {canEdit ? null : <p className="notice">You can view this workflow only: its owner can make you an editor.</p>}
      {conflict === null ? null : (
        <div className="notice warn" role="alert">
          <span>
            Someone saved version {conflict} after you opened version {saved.version}: your save would overwrite it, so
            nothing was saved.
          </span>
          <div className="row">
            <button type="button" onClick={() => void reload()}>
              Reload version {conflict} (drops your changes)
            </button>
            <button type="button" onClick={() => void saveNow(false, conflict)}>
              Save mine over it
            </button>
            <button type="button" className="ghost" onClick={() => setConflict(null)}>
              Dismiss
            </button>
          </div>
        </div>
      )}

      <SplitView
        label="Resize the editor and the canvas"
        showRight={canvasOpen}
        left={
          <div className="editor-layout">
            <div className="editor-frame">
              <YamlEditor
                module={module}
                text={start.yaml}
                readOnly={!canEdit}
                editor={editor}
                onChange={onChange}
                onCursor={canvas.onCursor}
                onIssues={(found) => {
                  setIssues(found);
                  setIssuesFromService(false);
                }}
              />
            </div>
            <ProblemsPanel
              issues={issues}
              fromService={issuesFromService}
              onPick={(issue) => editor.current?.goTo(issue.line, issue.column)}
            />
          </div>
        }
        right={
          <CanvasPane
            graph={canvas.graph}
            stale={canvas.stale}
            positions={canvas.positions}
            selected={canvas.selected}
            editable={canEdit}
            onSelect={canvas.select}
            onOperation={canvas.operate}
            onMove={canvas.move}
            onUndo={() => editor.current?.undo()}
            onRedo={() => editor.current?.redo()}
            panel={
              canvas.selectedNode ? (
                <StepPanel
                  node={canvas.selectedNode}
                  values={canvas.selectedValues}
                  agents={canvas.graph.agents}
                  container={canvas.graph.groups.some((group) => group.owner === canvas.selectedNode?.id)}
                  readOnly={!canEdit}
                  onOperation={canvas.operate}
                  onClose={canvas.deselect}
                />
              ) : null
            }
          />
        }
      />

      {saved.id === null ? null : (
        <RunDialog
          workflowId={saved.id}
          outline={runOutline}
          open={runOutline !== null}
          onClose={() => setRunOutline(null)}
        />
      )}
      <ConfirmDialog
        open={blocker.state === "blocked"}
        title="Leave without saving?"
        confirmLabel="Leave"
        danger
        onConfirm={() => blocker.proceed?.()}
        onCancel={() => blocker.reset?.()}
      >
        Your changes to this workflow are not saved; leaving drops them.
      </ConfirmDialog>
    </div>
  );
}
