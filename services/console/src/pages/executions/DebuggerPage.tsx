import { useMemo, useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Link, useParams } from "react-router";
import { api } from "../../api/client";
import type {
  DebugCommandAccepted,
  DebugCommandBody,
  DebugCommandName,
  ExecutionView,
  PauseRecord,
} from "../../api/types";
import { useShortcut } from "../../app/shortcuts";
import { ConfirmDialog, Modal } from "../../ui/confirm";
import { StatusBadge } from "../../ui/StatusBadge";
import { formatAgo, formatTime, prettyJson } from "../../ui/format";
import { Empty, ErrorState, Loading } from "../../ui/states";
import { useToast } from "../../ui/toast";
import { BreakpointsPanel } from "./BreakpointsPanel";
import { COMMANDS, applies, commandTitle, debugErrorWords, type CommandSpec } from "./debug-commands";
import { EditsList } from "./EditsList";
import { hasEnded } from "./execution-status";
import { JsonField, parseJson } from "./JsonField";
import { LiveIndicator } from "../../ui/LiveIndicator";
import { PauseEditors } from "./PauseEditors";
import { pauseErrorTitle, pauseSentence } from "./pause-words";
import { executionPath, fetchExecution, keys } from "./queries";
import { StepDetailPanel } from "./StepDetailPanel";
import { breakpointPaths, buildStepTree } from "./step-tree";
import { RunSteps } from "./RunSteps";
import { useBreakpointMarks, useBreakpointsUpdate } from "./useBreakpoints";
import { useFollowExecution } from "./useFollowExecution";
import { useNow } from "./useNow";
import { waitingTurns } from "./waiting-turns";
import { WaitingTurns } from "./WaitingTurns";
import "./executions.css";

/**
 * A debug run: where it waits and why, what it saw there (editable), the commands that answer the pause, its
 * breakpoints.
 */
export default function DebuggerPage() {
  const id = useParams().id ?? "";
  const execution = useQuery({ queryKey: keys.execution(id), queryFn: ({ signal }) => fetchExecution(id, signal) });
  const followed = useFollowExecution(id);

  if (execution.isPending) return <Loading what="Loading the execution" />;
  if (execution.isError) return <ErrorState error={execution.error} retry={() => void execution.refetch()} />;
  const view = execution.data;
  return (
    <div className="stack debugger-page">
      <div className="page-head">
        <h1>Debugger</h1>
        <Link to={executionPath(view.id)} className="mono">
          {view.id}
        </Link>
        <StatusBadge status={view.status} />
        <LiveIndicator state={followed.stream} />
      </div>
      {view.debug ? (
        <Debugger view={view} childRuns={followed.children} />
      ) : (
        <Empty title="This execution is not a debug run">
          Start a run under the debugger (with breakpoints) to pause it;{" "}
          <Link to={executionPath(view.id)}>this execution's page</Link> shows how it went.
        </Empty>
      )}
    </div>
  );
}

function Debugger({ view, childRuns }: { view: ExecutionView; childRuns: ReadonlyMap<string, string> }) {
  const queries = useQueryClient();
  const toast = useToast();
  const ended = hasEnded(view.status);
  const pause = ended ? null : view.pause;
  const now = useNow(1_000, !ended);
  const tree = useMemo(() => buildStepTree(view.definition, view.steps), [view.definition, view.steps]);
  const stepPaths = useMemo(() => breakpointPaths(view.definition), [view.definition]);
  const [selected, setSelected] = useState<string | null>(null);
  const put = useBreakpointsUpdate(view.id);
  const { marks, onGutterClick } = useBreakpointMarks(view, put);
  const [skipping, setSkipping] = useState(false);
  const [aborting, setAborting] = useState(false);
  const waiting = useMemo(() => (ended ? [] : waitingTurns(view)), [ended, view]);

  const command = useMutation({
    mutationFn: ({ name, body }: { name: DebugCommandName; body: DebugCommandBody }) =>
      api<DebugCommandAccepted>("POST", `/api/console/executions/${encodeURIComponent(view.id)}/debug/${name}`, {
        ...body,
        pauseId: pause?.id,
      }),
    onSuccess: (_answer, { name }) => {
      toast(
        name === "set" ? "Edit applied at this pause" : `${COMMANDS.find((c) => c.name === name)?.label ?? name} sent`,
      );
      setSkipping(false);
      setAborting(false);
      void queries.invalidateQueries({ queryKey: keys.execution(view.id) });
    },
  });
  const send = (name: DebugCommandName, body: DebugCommandBody = {}) => command.mutate({ name, body });
  const canSend = (c: CommandSpec) => pause !== null && !command.isPending && applies(c.name, pause);
  const press = (c: CommandSpec) => {
    if (!canSend(c)) return;
    if (c.name === "skip") return setSkipping(true);
    if (c.name === "abort") return setAborting(true);
    send(c.name);
  };
  const pressNamed = (name: CommandSpec["name"]) => {
    const c = COMMANDS.find((spec) => spec.name === name);
    if (c) press(c);
  };
  useShortcut("F8", () => pressNamed("continue"), pause !== null);
  useShortcut("F10", () => pressNamed("step"), pause !== null);
  useShortcut("F11", () => pressNamed("step_into"), pause !== null);

  return (
    <>
      <section className="card command-bar" aria-label="Debug commands">
        <div className="row">
          {COMMANDS.map((c) => (
            <button
              key={c.name}
              type="button"
              className={c.name === "continue" ? "primary" : c.name === "abort" ? "danger-outline" : undefined}
              disabled={!canSend(c)}
              title={commandTitle(c)}
              aria-keyshortcuts={c.shortcut}
              onClick={() => press(c)}
            >
              {c.label}
              {c.shortcut ? (
                <>
                  {" "}
                  <kbd>{c.shortcut}</kbd>
                </>
              ) : null}
            </button>
          ))}
          <div className="spacer" />
          <span className="muted small">
            {pause
              ? `Paused ${formatAgo(pause.pausedAt, now)}${waiting.length > 0 ? `; ${waiting.length} more waiting their turn` : ""}`
              : ended
                ? `Ended ${view.status.toLowerCase()}`
                : "Running: waiting for the next pause"}
          </span>
        </div>
        {command.error ? (
          <div className="form-error" role="alert">
            {debugErrorWords(command.error)}
          </div>
        ) : null}
      </section>

      <RunSteps
        view={view}
        tree={tree}
        now={now}
        selected={selected}
        onSelect={setSelected}
        compact
        marks={marks}
        onGutterClick={onGutterClick}
      />

      <div className="debugger-columns">
        <div className="stack">
          {pause ? (
            <>
              <PauseCard pause={pause} />
              {waiting.length > 0 ? <WaitingTurns points={waiting} selected={selected} onSelect={setSelected} /> : null}
              <PauseEditors key={pause.id} pause={pause} busy={command.isPending} onSet={(body) => send("set", body)} />
              <StepOutputs outputs={pause.context.outputs} />
            </>
          ) : (
            <section className="card">
              <Empty title={ended ? `The run has ended (${view.status.toLowerCase()})` : "Not paused"}>
                {ended ? (
                  <Link to={executionPath(view.id)}>See how it went</Link>
                ) : (
                  "The run goes on; it pauses at its next breakpoint, and this page shows the pause as it happens."
                )}
              </Empty>
            </section>
          )}
          {selected !== null ? (
            <StepDetailPanel executionId={view.id} path={selected} child={childRuns.get(selected)} />
          ) : null}
        </div>
        <div className="stack">
          <BreakpointsPanel put={put} breakpoints={view.breakpoints} stepPaths={stepPaths} ended={ended} />
          <EditsList edits={view.edits} />
        </div>
      </div>

      <SkipDialog
        open={skipping}
        busy={command.isPending}
        onCancel={() => setSkipping(false)}
        onSkip={(output) => send("skip", output === undefined ? {} : { output })}
      />
      <ConfirmDialog
        open={aborting}
        title="Abort this run?"
        confirmLabel="Abort the run"
        cancelLabel="Keep debugging"
        danger
        busy={command.isPending}
        onConfirm={() => send("abort")}
        onCancel={() => setAborting(false)}
      >
        The execution is cancelled, as a cancel does: the steps still to run will not run.
      </ConfirmDialog>
    </>
  );
}

function PauseCard({ pause }: { pause: PauseRecord }) {
  const c = pause.context;
  return (
    <section className="card stack pause-card" aria-label="Pause">
      <h2>
        Paused at <code>{pause.stepPath}</code>
      </h2>
      <p className="pause-why">
        {pauseSentence(pause)} Paused since {formatTime(pause.pausedAt)}.
      </p>
      {c.error !== undefined ? (
        <div className="step-error">
          <strong>{pauseErrorTitle(pause)}</strong>
          <pre>{c.error}</pre>
          {c.retryable !== undefined ? (
            <span className="muted small">
              {c.retryable ? "Its retry may try again." : "Its retry will not try again."}
            </span>
          ) : null}
        </div>
      ) : null}
      {c.index !== undefined ? (
        <p>
          Item <strong>{c.index}</strong>
        </p>
      ) : null}
      {c.item !== undefined ? <ReadOnlyJson label="Item" value={c.item} /> : null}
      {c.watch ? (
        <div className="grid-2">
          <ReadOnlyJson label={`${c.watch.expression}: before`} value={c.watch.before} />
          <ReadOnlyJson label="after" value={c.watch.after} />
        </div>
      ) : null}
      {c.toolCall ? (
        <p>
          Tool call{" "}
          <code>
            {c.toolCall.server}/{c.toolCall.tool}
          </code>
        </p>
      ) : null}
      {c.usage ? (
        <p>
          The execution so far: {c.usage.totalTokens.toLocaleString()} tokens, ${c.usage.costUsd.toFixed(6)}
        </p>
      ) : null}
    </section>
  );
}

function ReadOnlyJson({ label, value }: { label: string; value: unknown }) {
  return (
    <div>
      <h3>{label}</h3>
      <pre>{prettyJson(value)}</pre>
    </div>
  );
}

/**
 * What the steps completed so far returned: later steps read these. `set` changes only the paused step's own output
 * (after it ran).
 */
function StepOutputs({ outputs }: { outputs: Record<string, unknown> }) {
  const entries = Object.entries(outputs);
  return (
    <section className="card stack" aria-label="Step outputs">
      <h2>Step outputs so far</h2>
      {entries.length === 0 ? (
        <p className="muted">No step has completed yet.</p>
      ) : (
        entries.map(([path, output]) => (
          <details key={path} open={entries.length <= 4} data-output-of={path}>
            <summary className="mono">{path}</summary>
            <pre>{prettyJson(output)}</pre>
          </details>
        ))
      )}
    </section>
  );
}

function SkipDialog({
  open,
  busy,
  onCancel,
  onSkip,
}: {
  open: boolean;
  busy: boolean;
  onCancel(): void;
  onSkip(output: unknown): void;
}) {
  const [text, setText] = useState("");
  const parsed = parseJson(text, { optional: true });
  return (
    <Modal open={open} title="Skip the step" onClose={onCancel}>
      <div className="stack">
        <JsonField
          label="Output (optional)"
          hint="Empty: the step ends skipped. A JSON value: it ends completed with this output, which later steps read."
          value={text}
          onChange={setText}
          parsed={parsed}
          rows={4}
        />
        <div className="row end">
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          <button
            type="button"
            className="primary"
            disabled={!parsed.ok || busy}
            onClick={() => parsed.ok && onSkip(parsed.value)}
          >
            Skip the step
          </button>
        </div>
      </div>
    </Modal>
  );
}
