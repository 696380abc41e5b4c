import { keepJsonText } from "@wf/shared/text";
import type { CodeStep } from "@wf/shared/workflow";
import type { RunCommitter } from "../committer";
import { LogBatcher } from "../log-batcher";
import type { Scope } from "../scope";
import { throwIfAborted } from "../signals";
import type { StepContext, StepKind } from "./step-kind";

const DEFAULT_TIMEOUT_S = 30;
const ISOLATE_LANGUAGES: ReadonlySet<string> = new Set(["javascript", "typescript"]);

/** A code step whose start is not written before it runs: the write that records its result records both. */
export function writesResultOnly(step: { type: string; language?: string }): boolean {
  return step.type === "code" && step.language !== undefined && ISOLATE_LANGUAGES.has(step.language);
}

export const codeStep: StepKind<CodeStep> = {
  // The runner kills the program at the step's timeout.
  timesItself: true,
  input: renderInput,
  async run(ctx, step, { path, state: st, scope, input: edited }) {
    const { committer, effects } = ctx;
    const snap = committer.snap;
    const input = edited ? edited.value : await renderInput(ctx, step, scope);
    if (snap.enableMonitoring) {
      st.input = committer.budget.input(input);
      committer.budget.account(path, st);
    }
    // The attempt's start must be durable before its side effects begin. JavaScript and
    // TypeScript have none outside their isolate (no network, no files): their start is written
    // with their result (writesResultOnly), and one cut short by a crash simply runs again.
    if (!writesResultOnly(step)) await committer.flush();
    const live = snap.enableMonitoring ? liveLog(committer, path, st.attempts) : undefined;
    const res = await effects.runCode(
      {
        language: step.language,
        ...(step.code === undefined ? {} : { code: step.code }),
        ...(step.command === undefined ? {} : { command: step.command }),
        vars: snap.vars,
        input,
        ...(scope.item === undefined ? {} : { item: scope.item }),
        timeoutMs: (step.timeout ?? DEFAULT_TIMEOUT_S) * 1000,
        network: step.network ?? false,
        owner: snap.ownerId,
        execution: snap.id,
      },
      scope.signal,
      live?.add,
    );
    live?.flush();
    throwIfAborted(scope.signal);
    if (snap.enableMonitoring && res.logs.length)
      st.logs = committer.budget.logs([...(st.logs ?? []), ...res.logs].slice(-1000));
    // Each connection the step's egress proxy refused is an event, the first ones by name.
    for (const r of res.refused?.first ?? [])
      committer.emit("step_egress_refused", path, { attempt: st.attempts, ...r, total: res.refused?.total });
    if (res.artifacts.length) {
      const stored = await effects.saveArtifacts(path, res.artifacts);
      if ("refused" in stored)
        return { kind: "failed", error: `step \`${step.name}\`: ${stored.refused}`, retryable: false };
      const saved = stored.saved;
      st.artifacts = [...(st.artifacts ?? []), ...saved.map((a) => a.id)];
      committer.emit("step_artifacts", path, {
        artifacts: saved.map((a) => ({
          id: a.id,
          name: a.name,
          path: a.path,
          size: a.size,
          contentType: a.contentType,
        })),
      });
    }
    if (!res.ok)
      return {
        kind: "failed",
        error: `step \`${step.name}\`: ${res.error}`,
        retryable: true,
        ...(res.timedOut ? { timedOut: true as const } : {}),
      };
    if (res.outputJson !== undefined) keepJsonText(res.output, res.outputJson);
    return { kind: "completed", output: res.output };
  },
};

/** `WF_INPUT`: the step's `input`, templates evaluated. */
function renderInput(ctx: StepContext, step: CodeStep, scope: Scope): Promise<unknown> {
  return step.input === undefined ? Promise.resolve({}) : ctx.render(step.input, scope);
}

/** Streams a running step's log lines as `step_log` events (monitoring only). */
function liveLog(committer: RunCommitter, path: string, attempt: number): LogBatcher {
  let batch = 0;
  return new LogBatcher((lines) =>
    committer.publishLive("step_log", path, `${committer.snap.id}.log.${path}.${attempt}.${++batch}`, {
      attempt,
      lines,
    }),
  );
}
