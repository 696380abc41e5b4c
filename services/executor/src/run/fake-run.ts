/**
 * In-memory stand-ins for what a run writes to and acts on (its committer and its effects), so
 * that the run loop's unit tests (execution-run.test.ts) need no NATS server and no process.
 */
import { DEFAULT_MAX_PAYLOAD, ExecutionSnapshot, newId, resultLimits, type DebugRequest } from "@wf/shared/execution";
import { SecretMasker } from "@wf/shared/secrets";
import type { ApprovalRecord } from "@wf/shared/store";
import { WorkflowSchema, type Workflow } from "@wf/shared/workflow";
import type { LlmAnswer } from "../ai/gateway";
import type { McpServerTarget, McpTool, McpToolResult } from "../ai/mcp-pool";
import type { ChatRequest } from "../ai/providers/types";
import type { Artifact, CodeRequest, CodeResult } from "../code/index";
import type { RunCommitter } from "./committer";
import type { ChildStart, RunEffects, SavedArtifacts } from "./effects";
import { ExecutionRun } from "./execution-run";
import { RecordBudget } from "./record-budget";

interface RecordedEvent {
  type: string;
  step?: string;
  data: Record<string, unknown>;
}

/** A committer without a store: `flush` keeps a copy of the snapshot, as the store would hold it. */
export class MemoryCommitter implements RunCommitter {
  readonly limits = resultLimits(DEFAULT_MAX_PAYLOAD);
  readonly masker = new SecretMasker();
  readonly budget: RecordBudget;
  readonly outboxFull = false;
  /** What the run reads as the age of its unwritten changes: set by a test. */
  unwrittenMs = 0;
  readonly events: RecordedEvent[] = [];
  /** The snapshot as of the last flush: what a crash would leave. */
  stored: ExecutionSnapshot;

  constructor(readonly snap: ExecutionSnapshot) {
    this.budget = new RecordBudget(snap, this.limits, this.masker);
    this.stored = structuredClone(snap);
  }

  emit(type: string, step?: string, data: Record<string, unknown> = {}): void {
    this.events.push({ type, ...(step === undefined ? {} : { step }), data });
  }

  touch(): void {}

  /** Writes made by the run itself; its end write is its actor's, after `run()` returns. */
  flushes = 0;

  async flush(): Promise<void> {
    this.flushes += 1;
    this.owed = false;
    this.stored = structuredClone(this.snap);
  }

  private owed = false;

  oweWrite(): void {
    this.owed = true;
  }

  get owes(): boolean {
    return this.owed;
  }

  async writeOwed(): Promise<void> {
    if (this.owed) await this.flush();
  }

  publishLive(type: string, step: string, _id: string, data: Record<string, unknown>): void {
    this.events.push({ type, step, data });
  }

  /** The types of the events emitted for `step`, in order. */
  eventsOf(step: string): string[] {
    return this.events.filter((e) => e.step === step).map((e) => e.type);
  }
}

export type CodeScript = (req: CodeRequest, signal: AbortSignal) => CodeResult | Promise<CodeResult>;
export type LlmScript = (req: ChatRequest, signal: AbortSignal) => LlmAnswer | Promise<LlmAnswer>;

export function codeOk(output: unknown): CodeResult {
  return { ok: true, output, logs: [], artifacts: [], durationMs: 1 };
}

export function codeFailed(error: string): CodeResult {
  return { ok: false, error, logs: [], artifacts: [], durationMs: 1, timedOut: false };
}

/** A step's process that runs until it is stopped, then ends as a killed one would. */
export function untilAborted(signal: AbortSignal): Promise<CodeResult> {
  return new Promise((resolve) => {
    const end = () => resolve(codeFailed("killed"));
    if (signal.aborted) end();
    else signal.addEventListener("abort", end, { once: true });
  });
}

export function answer(text: string): LlmAnswer {
  return {
    text,
    toolCalls: [],
    usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    stopReason: "stop",
    provider: "fake",
    costUsd: 0,
  };
}

/** Effects that act on nothing: scripted results, and every call recorded. */
export class FakeEffects implements RunEffects {
  holdMs = 50;
  wokenFor: string | null = null;
  stopping = false;
  handingBack = (): boolean => this.stopping;
  readonly secrets: Readonly<Record<string, string>> = {};
  code: CodeScript = () => codeOk(null);
  llmScript: LlmScript = () => answer("");
  readonly codeCalls: CodeRequest[] = [];
  readonly codeSignals: AbortSignal[] = [];
  readonly llmCalls: ChatRequest[] = [];
  /** The tools every MCP server lists. */
  tools: McpTool[] = [];
  readonly toolCalls: { server: string; tool: string; args: Record<string, unknown> }[] = [];
  readonly wakes: { path: string; dueAt: number }[] = [];
  readonly idleTimers: { pauseId: string; dueAt: number }[] = [];
  readonly startedChildren: {
    workflowId: string;
    childId: string;
    path: string;
    inputs: Record<string, unknown>;
    debug?: DebugRequest;
  }[] = [];
  readonly cancelledChildren: string[] = [];
  /** Why artifacts are not stored (the owner's day spent); null: they are. */
  artifactRefusal: string | null = null;
  /** Due times the next child starts are put off to, one each, as the owner's exhausted budget would. */
  readonly childThrottles: number[] = [];
  readonly executions = new Map<string, ExecutionSnapshot>();
  readonly approvals = new Map<string, ApprovalRecord>();
  readonly openedApprovals: string[] = [];
  readonly cancelledApprovals: string[] = [];
  private codeStarted: (() => void)[] = [];

  /** Resolves when the next code step calls its runner. */
  nextCode(): Promise<void> {
    return new Promise((resolve) => this.codeStarted.push(resolve));
  }

  async runCode(req: CodeRequest, signal: AbortSignal): Promise<CodeResult> {
    this.codeCalls.push(req);
    this.codeSignals.push(signal);
    for (const started of this.codeStarted.splice(0)) started();
    return this.code(req, signal);
  }

  async saveArtifacts(stepPath: string, files: Artifact[]): Promise<SavedArtifacts> {
    if (this.artifactRefusal !== null) return { refused: this.artifactRefusal };
    const saved = files.map((f, i) => ({
      id: `artifact-${i}`,
      executionId: "e",
      ownerId: "o",
      stepName: stepPath,
      name: f.path,
      path: f.path,
      storageKey: f.path,
      size: f.size,
      contentType: "application/octet-stream",
      previewable: false,
      createdAt: 0,
    }));
    return { saved };
  }

  async scheduleWake(path: string, dueAt: number): Promise<void> {
    this.wakes.push({ path, dueAt });
  }

  async scheduleDebugIdle(pauseId: string, dueAt: number): Promise<void> {
    this.idleTimers.push({ pauseId, dueAt });
  }

  newChildId(): string {
    return newId();
  }

  async startChild(
    workflowId: string,
    childId: string,
    path: string,
    inputs: Record<string, unknown>,
    debug?: DebugRequest,
  ): Promise<ChildStart> {
    const until = this.childThrottles.shift();
    if (until !== undefined) return { kind: "throttled", until };
    this.startedChildren.push({ workflowId, childId, path, inputs, ...(debug ? { debug } : {}) });
    this.executions.set(
      childId,
      snapshotOf(workflowOf({ name: workflowId, steps: [{ name: "s", type: "wait", seconds: 0 }] }), {}, childId),
    );
    return { kind: "started" };
  }

  async loadExecution(id: string): Promise<ExecutionSnapshot | null> {
    return this.executions.get(id) ?? null;
  }

  cancelChild(id: string): void {
    this.cancelledChildren.push(id);
  }

  async openApproval(record: ApprovalRecord): Promise<void> {
    this.openedApprovals.push(record.id);
    if (!this.approvals.has(record.id)) this.approvals.set(record.id, structuredClone(record));
  }

  async loadApproval(id: string): Promise<ApprovalRecord | null> {
    return this.approvals.get(id) ?? null;
  }

  async cancelApproval(id: string, reason: string): Promise<ApprovalRecord | null> {
    this.cancelledApprovals.push(id);
    const record = this.approvals.get(id);
    if (record?.status === "PENDING") Object.assign(record, { status: "CANCELLED", comment: reason });
    return record ?? null;
  }

  /** Decides the approval the run opened (there must be exactly one). */
  decide(status: "APPROVED" | "REJECTED" | "EXPIRED", changes: Partial<ApprovalRecord> = {}): ApprovalRecord {
    const [record, ...more] = this.approvals.values();
    if (!record || more.length) throw new Error(`expected one approval, found ${this.approvals.size}`);
    return Object.assign(record, { status, decidedAt: Date.now(), ...changes });
  }

  async llm(req: ChatRequest, signal: AbortSignal): Promise<LlmAnswer> {
    this.llmCalls.push(req);
    return this.llmScript(req, signal);
  }

  llmPrice(): null {
    return null;
  }

  async mcpTools(): Promise<McpTool[]> {
    return this.tools;
  }

  /** Answers with the arguments it was given, as JSON. */
  async mcpCall(server: McpServerTarget, tool: string, args: Record<string, unknown>): Promise<McpToolResult> {
    this.toolCalls.push({ server: server.name, tool, args });
    return { text: JSON.stringify(args), isError: false };
  }

  async dispose(): Promise<void> {}
}

export function workflowOf(definition: unknown): Workflow {
  return WorkflowSchema.parse(definition);
}

export function snapshotOf(workflow: Workflow, vars: Record<string, unknown>, id = "e1"): ExecutionSnapshot {
  const now = Date.now();
  return ExecutionSnapshot.parse({
    id,
    workflowId: "w1",
    workflowName: workflow.name,
    ownerId: "o1",
    triggerSource: "console",
    status: "RUNNING",
    totalSteps: workflow.steps.length,
    createdAt: now,
    startedAt: now,
    vars,
    definition: workflow,
  });
}

/** One run of an execution, from a snapshot (a new one, or one stored by an earlier run). */
export class RunUnderTest {
  readonly committer: MemoryCommitter;
  readonly run: ExecutionRun;

  constructor(
    readonly workflow: Workflow,
    readonly effects: FakeEffects,
    snapshot: ExecutionSnapshot,
  ) {
    this.committer = new MemoryCommitter(structuredClone(snapshot));
    this.run = new ExecutionRun(this.committer, workflow, effects);
  }

  get snap(): ExecutionSnapshot {
    return this.committer.snap;
  }

  /** A later run of the same execution, as a resume command would start it from the store. */
  resumed(from: ExecutionSnapshot = this.snap): RunUnderTest {
    return new RunUnderTest(this.workflow, this.effects, from);
  }
}
