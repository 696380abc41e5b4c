import { useEffect, useMemo, useRef, useState } from "react";
import { Link, useLocation, useNavigate, useParams, useSearchParams } from "react-router";
import { useQuery } from "@tanstack/react-query";
import type { WorkflowEditor, WorkflowOutline } from "../../editor";
import { shortcutLabel, useShortcut } from "../../app/shortcuts";
import { ConfirmDialog } from "../../ui/confirm";
import { InsertTargets, InsertTargetsContext, type InsertTarget } from "../../ui/insert-target";
import { MoreMenu } from "../../ui/MoreMenu";
import { ErrorState, Loading } from "../../ui/states";
import { CanvasPane } from "./CanvasPane";
import { copyArrival, fromDetail, newStart, type Arrival, type Start } from "./editor-start";
import { templateByKey } from "./examples";
import { KnownOutputsPanel } from "./KnownOutputsPanel";
import { ProblemsPanel } from "./ProblemsPanel";
import type { ServiceIssues } from "./problems";
import { editorPath, fetchWorkflow, workflowKeys } from "./queries";
import { RoleBadge } from "./RoleBadge";
import { RunDialog } from "./RunDialog";
import { SplitView } from "./SplitView";
import { StepPanel } from "./StepPanel";
import { foreachLineage } from "./foreach-lineage";
import { StepPinPanel } from "./StepPinPanel";
import { StepTestPanel } from "./StepTestPanel";
import { stepScopeOf } from "../../editor/expression-scope";
import { readableOutputs, type KnownItems } from "../../editor/preview-context";
import { useEditorCanvas } from "./useEditorCanvas";
import { useEditorModule, type EditorModule } from "./useEditorModule";
import { useFirstItem } from "./useFirstItem";
import { useProblemList } from "./useProblemList";
import { useKnownOutputs } from "./useKnownOutputs";
import { secretsQuery } from "../secrets/queries";
import { usePins } from "./usePins";
import { useWorkflowSave } from "./useWorkflowSave";
import { YamlEditor } from "./YamlEditor";
import { downloadText, nameIn, yamlFileName } from "./workflow-file";
import "./workflows.css";

/** No foreach around the selected step: a list that stays the same across renders. */
const NO_ITEMS: readonly KnownItems[] = [];

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
  // `/workflows/new?copyOf=<id>` (a list's Duplicate) opens a copy of that workflow's current version.
  const copied = id === undefined ? search.get("copyOf") : null;
  const read = id ?? copied;
  const detail = useQuery({
    queryKey: workflowKeys.detail(read ?? ""),
    queryFn: ({ signal }) => fetchWorkflow(read!, signal),
    enabled: read !== null,
  });
  // The editor keeps what it opened with: a later refetch of the detail must not replace the person's text.
  const [start, setStart] = useState<Start | null>(null);

  useEffect(() => {
    if (start) return;
    const template = templateByKey(search.get("example"));
    if (read === null) setStart(newStart((location.state ?? {}) as Arrival, template));
    else if (!detail.data) return;
    else if (id !== undefined) setStart(fromDetail(detail.data));
    else {
      const { yaml, name, layout } = detail.data;
      setStart(newStart(copyArrival(yaml, name, layout.positions), template));
    }
  }, [id, read, detail.data, start, location.state, search]);

  if (moduleError) return <ErrorState error={moduleError} retry={() => window.location.reload()} />;
  if (detail.isError && !start) return <ErrorState error={detail.error} retry={() => void detail.refetch()} />;
  if (!start || !module) return <Loading what={start ? "Loading the editor" : "Loading the workflow"} />;
  return <EditorScreen start={start} module={module} />;
}

function EditorScreen({ start, module }: { start: Start; module: EditorModule }) {
  const navigate = useNavigate();
  const location = useLocation();
  const editor = useRef<WorkflowEditor | null>(null);
  const [serviceIssues, setServiceIssues] = useState<ServiceIssues | null>(null);
  const [runOutline, setRunOutline] = useState<WorkflowOutline | null>(null);
  const flow = useWorkflowSave({
    start,
    editor,
    // Called after this render, once `canvas` below exists.
    onCreated: (id) => canvas.storeLayoutFor(id),
    onServiceIssues: setServiceIssues,
  });
  const { saved, dirty, canEdit, saveNow } = flow;
  const canvas = useEditorCanvas({
    editor,
    text: start.yaml,
    positions: start.positions,
    workflowId: saved.id,
    canEdit,
  });
  const problems = useProblemList(editor, canvas.text, canvas.graph.issues, serviceIssues);
  const [canvasOpen, setCanvasOpen] = useState(true);
  const pins = usePins(saved.id);
  const pinned = useMemo(() => new Set(Object.keys(pins)), [pins]);
  const known = useKnownOutputs(saved.id, pins);
  // What the selected step reads: the steps before it in its own branch too; inside a foreach, the steps of its item as
  // item 0 of the latest run ran them.
  const readable = useMemo(
    () =>
      canvas.selectedNode === undefined
        ? null
        : readableOutputs(stepScopeOf(canvas.graph, canvas.selectedNode), known.data, known.outputs),
    [canvas.graph, canvas.selectedNode, known.data, known.outputs],
  );
  // One worker evaluates the editor's previews and the panel's `item`, which it evaluates once for both.
  const [previews] = useState(() => new module.PreviewRunner());
  useEffect(() => () => previews.stop(), [previews]);
  const firstItem = useFirstItem(previews, readable?.items ?? NO_ITEMS);
  const knownNow = useRef(known.outputs);
  knownNow.current = known.outputs;
  const knownData = useRef(known.data);
  knownData.current = known.data;
  // Runs read their owner's secrets: their names are offered to the owner only, who can list them anyway.
  const secrets = useQuery({ ...secretsQuery, enabled: saved.role === "owner" });
  const secretNames = useRef<readonly string[]>([]);
  secretNames.current = saved.role === "owner" ? (secrets.data?.items.map((s) => s.name) ?? []) : [];
  // Where a picked output field goes: the YAML editor or a field of the step panel, whichever was focused last.
  const [targets] = useState(() => new InsertTargets());
  const yamlTarget = useMemo<InsertTarget>(
    () => ({
      name: "the YAML",
      insert(text) {
        const line = editor.current?.insert(text);
        return line === null || line === undefined ? null : `the YAML, line ${line}`;
      },
    }),
    [],
  );

  const openRun = (yaml: string) => setRunOutline(module.describeWorkflow(yaml));

  const run = async () => {
    if (!canEdit || flow.pending) return;
    if (!dirty && saved.id !== null) return openRun(saved.yaml);
    // The service runs what is stored: the text on screen is saved first.
    const stored = await saveNow(true);
    if (stored && saved.id !== null) openRun(stored.yaml);
  };

  // A first save that asked to run lands here with the run form to open.
  useEffect(() => {
    if (!(location.state as Arrival | null)?.openRun) return;
    openRun(saved.yaml);
    void navigate(location.pathname, { replace: true, state: null });
    // Once, on arrival.
  }, []);

  const modal = runOutline !== null || flow.blocker.state === "blocked";
  useShortcut(
    "mod+s",
    () => {
      leaveFieldAndReturn();
      void saveNow();
    },
    canEdit && !modal,
  );
  useShortcut(
    "mod+Enter",
    () => {
      leaveFieldAndReturn();
      void run();
    },
    canEdit && !modal,
  );

  const currentText = () => editor.current?.text() ?? start.yaml;

  const onChange = (text: string) => {
    flow.edited(text);
    // The service's answer was about the text before this edit, even should an undo bring that text back.
    setServiceIssues(null);
    canvas.onText(text);
  };

  const page = (
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
        <MoreMenu label="More">
          {saved.id === null ? null : (
            <Link
              to={`/executions?workflowId=${encodeURIComponent(saved.id)}`}
              className="button"
              title="This workflow's executions, newest first"
            >
              Runs
            </Link>
          )}
          <button
            type="button"
            onClick={() => downloadText(yamlFileName(nameIn(currentText()) ?? saved.name), currentText())}
            title="Save the YAML as it is in the editor as a file"
          >
            Download
          </button>
          {saved.id === null ? null : (
            <button
              type="button"
              onClick={() =>
                void navigate("/workflows/new", { state: copyArrival(currentText(), saved.name, canvas.positions) })
              }
              title="A new workflow with this one's YAML as it is in the editor, not saved until you save it"
            >
              Duplicate
            </button>
          )}
        </MoreMenu>
        <button
          type="button"
          onClick={() => void run()}
          disabled={!canEdit || flow.pending}
          title={`Run (${shortcutLabel("mod+Enter")}); saves first`}
        >
          Run
        </button>
        <button
          type="button"
          className="primary"
          onClick={() => void saveNow()}
          disabled={!canEdit || flow.pending}
          title={`Save (${shortcutLabel("mod+s")})`}
        >
          {flow.pending ? "Saving…" : "Save"}
        </button>
      </div>

      {canEdit ? null : <p className="notice">You can view this workflow only: its owner can make you an editor.</p>}
      {flow.conflict === null ? null : (
        <div className="notice warn" role="alert">
          <span>
            Someone saved version {flow.conflict} after you opened version {saved.version}: your save would overwrite
            it, so nothing was saved.
          </span>
          <div className="row">
            <button type="button" onClick={() => void flow.reload()}>
              Reload version {flow.conflict} (drops your changes)
            </button>
            <button type="button" onClick={() => void saveNow(false, flow.conflict)}>
              Save mine over it
            </button>
            <button type="button" className="ghost" onClick={flow.dismissConflict}>
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
                previews={previews}
                text={start.yaml}
                readOnly={!canEdit}
                editor={editor}
                onChange={onChange}
                onCursor={canvas.onCursor}
                onFocus={() => targets.remember(yamlTarget)}
                knownOutputs={() => knownNow.current}
                knownData={() => knownData.current}
                secretNames={() => secretNames.current}
              />
            </div>
            <ProblemsPanel
              issues={problems.issues}
              fromService={problems.fromService}
              onPick={(issue) => editor.current?.goTo(issue.line, issue.column)}
            />
          </div>
        }
        right={
          <CanvasPane
            graph={canvas.graph}
            problems={problems.issues}
            stale={canvas.stale}
            positions={canvas.positions}
            pinned={pinned}
            selected={canvas.selected}
            also={canvas.also}
            editable={canEdit}
            onSelect={canvas.select}
            onExtend={canvas.extend}
            onOperation={canvas.operate}
            onMove={canvas.move}
            onUndo={() => editor.current?.undo()}
            onRedo={() => editor.current?.redo()}
            onIssue={(issue) => editor.current?.goTo(issue.line, issue.column)}
            panel={
              canvas.selectedNode ? (
                <StepPanel
                  node={canvas.selectedNode}
                  values={canvas.selectedValues}
                  text={canvas.text}
                  agents={canvas.graph.agents}
                  container={canvas.graph.groups.some((group) => group.owner === canvas.selectedNode?.id)}
                  group={canvas.group}
                  readOnly={!canEdit}
                  onOperation={canvas.operate}
                  onClose={canvas.deselect}
                  outputs={
                    <KnownOutputsPanel
                      outputs={readable?.outputs ?? known.outputs}
                      before={readable?.before ?? []}
                      itemSteps={readable?.itemSteps}
                      item={firstItem}
                    />
                  }
                  test={
                    <>
                      <StepPinPanel
                        key={`pin:${canvas.selectedNode.name ?? canvas.selectedNode.id}`}
                        workflowId={saved.id}
                        step={canvas.selectedNode.name}
                        topLevel={canvas.selectedNode.group === undefined}
                        pin={canvas.selectedNode.name === undefined ? undefined : pins[canvas.selectedNode.name]}
                        readOnly={!canEdit}
                      />
                      <StepTestPanel
                        key={canvas.selectedNode.name ?? canvas.selectedNode.id}
                        workflowId={saved.id}
                        step={canvas.selectedNode.name}
                        foreaches={foreachLineage(canvas.graph, canvas.selectedNode.id)}
                        topLevel={canvas.selectedNode.group === undefined}
                        priced={canvas.selectedNode.type === "llm" || canvas.selectedNode.type === "agent"}
                        reads={canvas.graph.references.flatMap((ref) =>
                          ref.holder === canvas.selectedNode?.id && ref.target !== undefined ? [ref.name] : [],
                        )}
                        text={() => editor.current?.text() ?? ""}
                        onOutput={known.tested}
                      />
                    </>
                  }
                />
              ) : null
            }
          />
        }
      />

      {saved.id === null ? null : (
        <RunDialog
          workflowId={saved.id}
          version={saved.version}
          outline={runOutline}
          open={runOutline !== null}
          onClose={() => setRunOutline(null)}
        />
      )}
      <ConfirmDialog
        open={flow.blocker.state === "blocked"}
        title="Leave without saving?"
        confirmLabel="Leave"
        danger
        onConfirm={() => flow.blocker.proceed?.()}
        onCancel={() => flow.blocker.reset?.()}
      >
        Your changes to this workflow are not saved; leaving drops them.
      </ConfirmDialog>
    </div>
  );
  return <InsertTargetsContext.Provider value={targets}>{page}</InsertTargetsContext.Provider>;
}

/**
 * A step panel field keeps what is typed until it is left (FieldControl): a shortcut leaves it first, as a click on
 * Save does, so that what it saves or runs includes it; the focus then comes back to the field.
 */
function leaveFieldAndReturn(): void {
  const field = document.activeElement;
  if (!(field instanceof HTMLInputElement || field instanceof HTMLTextAreaElement)) return;
  field.blur();
  field.focus({ preventScroll: true });
}
