import type { DebugRequest, ExecutionSnapshot } from "@wf/shared/execution";
import type { ApprovalRecord, ArtifactRecord } from "@wf/shared/store";
import type { Artifact, CodeRequest, CodeResult, LogListener } from "../code/index";
import type { AiEffects } from "./ai-effects";

/** What storing a step's artifacts came to: their records, or why none was stored. */
export type SavedArtifacts = { saved: ArtifactRecord[] } | { refused: string };

/** What asking for a child execution came to. */
export type ChildStart =
  | { kind: "started" }
  /** It cannot start as asked (not found, not allowed, too deep, too large): the step fails with `error`. */
  | { kind: "refused"; error: string }
  /** The owner's sub-workflow starts reached their plan's limit this minute: ask again at `until`. */
  | { kind: "throttled"; until: number };

/**
 * Everything the orchestration does to the world, behind one interface: the orchestration in
 * this folder stays deterministic over the snapshot, and the side effects live in ../actor.
 */
export interface RunEffects extends AiEffects {
  /** Waits shorter than this stay in memory; longer ones park the execution. */
  readonly holdMs: number;
  /**
   * The step whose durable timer's resume this run handles, if one's did: a wait it finds early re-arms its timer. The
   * run clears it once it has passed over the steps: a second pass in the same wake (passAgain) comes to that wait
   * again, and each timer it arms is a message of its own.
   */
  wokenFor: string | null;
  /**
   * The process is stopping: the run parks at the next step it would start and at any wait, to
   * be handed to another replica, rather than run on past the stop's grace period.
   */
  handingBack(): boolean;
  runCode(req: CodeRequest, signal: AbortSignal, onLog?: LogListener): Promise<CodeResult>;
  /** Stores the files a step wrote as the execution's artifacts, unless the owner's artifacts of the day are spent. */
  saveArtifacts(stepPath: string, files: Artifact[]): Promise<SavedArtifacts>;
  /** Arms a durable timer that resumes this execution at `dueAt`. */
  scheduleWake(stepPath: string, dueAt: number): Promise<void>;
  /** Arms the idle timer of a debug pause: at `dueAt` the execution is cancelled if that pause still waits, idle. */
  scheduleDebugIdle(pauseId: string, dueAt: number): Promise<void>;
  /** The id of a new child execution, in the less busy of its owner's (this execution's owner's) start lanes. */
  newChildId(): string;
  /** Publishes the start command of a child execution (a debug run when `debug` is given), if it may start now. */
  startChild(
    workflowId: string,
    childId: string,
    stepPath: string,
    inputs: Record<string, unknown>,
    debug?: DebugRequest,
  ): Promise<ChildStart>;
  loadExecution(id: string): Promise<ExecutionSnapshot | null>;
  /**
   * Cancels a child execution in the background, retrying a publish that fails for a while: a
   * failure is logged, never thrown (nothing awaits it, and the parent's cancel goes on).
   */
  cancelChild(id: string): void;
  /** Stores a new approval record (a second call for the same id is a no-op) and arms its timeout. */
  openApproval(record: ApprovalRecord): Promise<void>;
  loadApproval(id: string): Promise<ApprovalRecord | null>;
  /**
   * Cancels a still-pending approval by compare-and-set (its execution no longer waits on it);
   * returns the record as it stands after: CANCELLED, or the decision that came first.
   */
  cancelApproval(id: string, reason: string): Promise<ApprovalRecord | null>;
}
