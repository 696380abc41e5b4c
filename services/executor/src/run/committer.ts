import type { JetStreamPublisher } from "@wf/shared/store";
import { AlreadyExistsError, CasConflictError } from "@wf/shared/errors";
import {
  adoptBreakpoints,
  endedStatus,
  eventJson,
  sharedDefinition,
  type ExecutionEvent,
  type ExecutionSnapshot,
  type ResultLimits,
} from "@wf/shared/execution";
import {
  DUPLICATE_WINDOW_MS,
  isTransient,
  retryTransient,
  subjects,
  toToken,
  TRANSIENT_RETRY_MS,
} from "@wf/shared/nats";
import { SecretMasker } from "@wf/shared/secrets";
import type { Store } from "@wf/shared/store";
import { countCommitted } from "../ops/execution-metrics";
import { RecordBudget } from "./record-budget";
import { jsonBytes } from "./result-limits";
import { CancelledError, LostOwnershipError, StartTakenError } from "./signals";

/**
 * How long the results of pure steps may wait in memory for a write: what a crash makes run
 * again, and how far a watcher's view may lag a run of quick steps.
 */
export const PURE_RUN_WRITE_MS = 1_000;

/** What is left of an event's values when the events of one write would not fit its room otherwise. */
const SLIM_VALUE_BYTES = 256;

/**
 * What a run does with its record (ExecutionRun and its step kinds): the Committer below in the
 * service, an in-memory stand-in in the run loop's unit tests.
 */
export interface RunCommitter {
  readonly snap: ExecutionSnapshot;
  readonly limits: ResultLimits;
  readonly masker: SecretMasker;
  readonly budget: RecordBudget;
  readonly outboxFull: boolean;
  /** How long the oldest change not yet written has waited (0 when none). */
  readonly unwrittenMs: number;
  /** `measured`: the bytes of some of `data`'s values' JSON, where the caller has them. */
  emit(type: string, step?: string, data?: Record<string, unknown>, measured?: Record<string, number>): void;
  /** Records that `snap` changed where no event describes the change (an approval's id): the next flush writes it. */
  touch(): void;
  flush(): Promise<void>;
  /**
   * Leaves the result of a step that acted outside to the run's next write, where what the run does next writes it
   * (a step acting outside, with its start; a `workflow` step, with its child's id): `writeOwed` writes it before
   * anything else runs.
   */
  oweWrite(): void;
  /** Whether `oweWrite` left a change that no write has taken yet. */
  readonly owes: boolean;
  /** Writes what `oweWrite` left, unless a write took it since. */
  writeOwed(): Promise<void>;
  publishLive(type: string, step: string, id: string, data: Record<string, unknown>): void;
}

/**
 * The single writer of one execution's snapshot. Changes are made to `snap` in memory and
 * described by events; `flush()` writes the snapshot by compare-and-set (the events travel in it
 * as the outbox), then publishes the events, each with its own Nats-Msg-Id. Changes that pile
 * up while a write is in flight go out together in the next write: a run of quick steps costs
 * one write per step, not two.
 */
export class Committer implements RunCommitter {
  snap: ExecutionSnapshot;
  version: number;
  /** The values of the secrets this run reads: masked in everything written or published. */
  readonly masker = new SecretMasker();
  private pending: ExecutionEvent[] = [];
  private pendingBytes = 0;
  #budget: RecordBudget | undefined;
  private dirty = false;
  private dirtySince = 0;
  /** A change left by oweWrite that no write has taken yet. */
  private owed = false;
  private inflight: Promise<void> | null = null;
  private acks: Promise<void>[] = [];
  /** The variables last given to the store to name (nameVariables): only others are given again. */
  private varsNamed: unknown;
  /** Set by deferCreate until the first write creates the record. */
  private unstored = false;
  /** Writes the record of a deferred start whose first pure steps run long (PURE_RUN_WRITE_MS). */
  private progressTimer: NodeJS.Timeout | undefined;
  /** What that write failed with: the run's next flush throws it. */
  private progressFailure: unknown = null;
  private readonly subj;
  /** Who we are: kept apart from `snap.holder`, which the final write of a run clears. */
  private readonly holder: ExecutionSnapshot["holder"];
  /**
   * The outbox of the record read, until the first write replaces it: its writer (a holder that died between its
   * write and its publish) may not have published it.
   */
  private inherited: ExecutionEvent[];

  /**
   * `holder`: a lost compare-and-set means a guest wrote the record (adoptConcurrentChange): adopt what it changed
   * and write again, unless it is a cancel (CancelledError). `guest` (the cancel handler, a debugger's command, a
   * give-up): a lost compare-and-set is thrown, to re-read.
   */
  constructor(
    snap: ExecutionSnapshot,
    version: number,
    private readonly store: Store,
    /** Events go out through a publisher that sends without a request each (JetStreamPublisher). */
    private readonly events: EventPublisher,
    ns: string,
    readonly limits: ResultLimits,
    private readonly role: "holder" | "guest" = "holder",
  ) {
    // Shared with every other execution of the definition: its parse and its JSON are made once (parsed-definitions.ts).
    snap.definition = sharedDefinition(snap.definition, snap.ownerId);
    this.snap = snap;
    this.version = version;
    this.holder = snap.holder;
    this.subj = subjects(ns);
    this.inherited = snap.outbox;
  }

  /** The size accounting of the run's record; made on first use (a cancel or a give-up needs none). */
  get budget(): RecordBudget {
    this.#budget ??= new RecordBudget(this.snap, this.limits, this.masker, (definition) =>
      this.store.executions.namedDefinitionBytes(definition),
    );
    return this.#budget;
  }

  /** Whether the events awaiting the next write are past their share of the record. */
  get outboxFull(): boolean {
    return this.pendingBytes > this.limits.outboxBytes;
  }

  get unwrittenMs(): number {
    return this.dirty ? Date.now() - this.dirtySince : 0;
  }

  /** Records that `snap` changed, with the events that describe the change. */
  emit(type: string, step?: string, data: Record<string, unknown> = {}, measured?: Record<string, number>): void {
    this.touch();
    const s = this.snap;
    const { event, bytes } = this.numbered(type, step, data, measured);
    this.pending.push(event);
    // Counted from the values' sizes, measured as they were capped: the event is not serialised again to be counted.
    this.pendingBytes += EVENT_FIELDS_BYTES + bytes + utf8Bytes(type) + utf8Bytes(step ?? "");
    this.pendingBytes += 2 * s.id.length + utf8Bytes(s.workflowId) + utf8Bytes(s.ownerId);
  }

  /** The run's next event, its values capped; `bytes`: their size as capped. */
  private numbered(
    type: string,
    step: string | undefined,
    data: Record<string, unknown>,
    measured?: Record<string, number>,
  ): { event: ExecutionEvent; bytes: number } {
    const s = this.snap;
    s.eventSeq += 1;
    const capped = capValues(data, this.limits.eventValueBytes, measured);
    const event: ExecutionEvent = {
      type,
      executionId: s.id,
      workflowId: s.workflowId,
      ownerId: s.ownerId,
      at: Date.now(),
      id: `${s.id}.${s.eventSeq}`,
      ...(step === undefined ? {} : { step }),
      data: capped.data,
    };
    return { event, bytes: capped.bytes };
  }

  touch(): void {
    if (this.dirty) return;
    this.dirty = true;
    this.dirtySince = Date.now();
  }

  /** Makes every change so far durable (snapshot written, events handed to JetStream). */
  async flush(): Promise<void> {
    while (this.inflight) await this.inflight;
    if (this.progressFailure !== null) throw this.progressFailure;
    if (!this.dirty) return;
    this.inflight = this.write();
    try {
      await this.inflight;
    } finally {
      this.inflight = null;
    }
  }

  oweWrite(): void {
    this.owed = true;
  }

  get owes(): boolean {
    return this.owed;
  }

  async writeOwed(): Promise<void> {
    // Nothing owed, nothing awaited: a pure step does not wait for another branch's write in flight.
    if (!this.owed) return;
    // A write in flight may have taken it: only once it is done is it known whether another is owed.
    while (this.inflight) await this.inflight;
    if (this.owed) await this.flush();
  }

  /** Waits until JetStream has acknowledged every event published so far. */
  async settle(): Promise<void> {
    await this.flush();
    await this.eventsStored();
  }

  /**
   * Waits for the acks of the events published so far. Through a transient failure (a stream
   * electing a leader) the snapshot's outbox is published again, its events already stored
   * being dropped by id: the run goes on, rather than giving up what it holds.
   */
  private async eventsStored(): Promise<void> {
    const deadline = Date.now() + TRANSIENT_RETRY_MS;
    for (let attempt = 1; ; attempt++) {
      const acks = this.acks;
      this.acks = [];
      try {
        await Promise.all(acks);
        return;
      } catch (err) {
        if (!isTransient(err) || Date.now() >= deadline) throw err;
        await new Promise((resolve) => setTimeout(resolve, Math.min(25 * 2 ** attempt, 1_000)));
        this.publish(this.snap.outbox);
      }
    }
  }

  /**
   * A start whose first steps are pure leaves its record to its first write (durability by effect):
   * a run of pure steps that ends within PURE_RUN_WRITE_MS is written once, at its end. Until then
   * the execution reads as its start left it (PENDING), and a crash runs it again from its command.
   * A long one is written once that time has passed, step running or not, so that it shows RUNNING.
   */
  deferCreate(): void {
    this.unstored = true;
    this.touch();
    // Cleared by the first write, or when the run gives up (abandon).
    this.progressTimer = setTimeout(() => {
      this.flush().catch((err: unknown) => {
        this.progressFailure ??= err;
      });
    }, PURE_RUN_WRITE_MS);
    this.progressTimer.unref();
  }

  /** The run stopped without finishing (it threw): a deferred record is left to the command's next delivery. */
  abandon(): void {
    clearTimeout(this.progressTimer);
  }

  /** The first write of an execution: creates the snapshot, with its first events as outbox. */
  async create(): Promise<void> {
    const events = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.dirty = false;
    this.owed = false;
    this.snap.outbox = events;
    this.masker.inPlace(this.snap);
    this.version = await this.store.executions.create(this.snap);
    countCommitted(this.snap, events);
    this.publish(events);
  }

  /**
   * An event that records no change (a running step's log lines): published at once, outside
   * the snapshot, with the caller's id. Lost if the process dies first, as a log tail may be.
   */
  publishLive(type: string, step: string, id: string, data: Record<string, unknown>): void {
    const s = this.snap;
    const capped = capValues(this.masker.inPlace(data), this.limits.eventValueBytes).data;
    this.publish([
      { type, executionId: s.id, workflowId: s.workflowId, ownerId: s.ownerId, at: Date.now(), id, step, data: capped },
    ]);
  }

  /** The outbox of the record read is known to be in the stream (its writer was this process): not published again. */
  outboxPublished(): void {
    this.inherited = [];
  }

  private async write(): Promise<void> {
    // Before the changes of this write are taken: what comes in meanwhile goes with their events in the next.
    if (!this.unstored) await this.nameVariables();
    // The outbox being replaced must be safely in the stream first: ours, and the one found in the record read.
    this.publishInherited();
    await this.eventsStored();
    this.announceBreakpoints();
    const events = this.pending;
    const bytes = this.pendingBytes;
    // Runs write at step boundaries once their events pass outboxBytes; only branches that all
    // finish steps at once (a wide foreach) can pile up more, and their values then give way.
    if (bytes > 2 * this.limits.outboxBytes) for (const e of events) e.data = capValues(e.data, SLIM_VALUE_BYTES).data;
    this.pending = [];
    this.pendingBytes = 0;
    this.dirty = false;
    this.owed = false;
    this.snap.outbox = events;
    // In place: what the run goes on with is what the store holds (the outbox travels in it).
    this.masker.inPlace(this.snap);
    this.stampRelease();
    try {
      if (this.unstored) await this.createDeferred();
      else await this.update();
    } catch (err) {
      // Not written: its events go with the write that records the cancel.
      if (err instanceof CancelledError) this.keepUnwritten(events, bytes);
      throw err;
    }
    // `events` is the outbox written, with what an adopted change announced (adoptConcurrentChange).
    countCommitted(this.snap, events);
    this.publish(events);
  }

  /**
   * Publishes the outbox found in the record read, once, before a write replaces it (or at once, for an ending finished
   * again): its writer may have died before publishing it, and nobody publishes an outbox after its replacement. So do
   * a guest's write (a cancel, a debugger's command) and a resume's or a takeover's first. The stream drops the events
   * it has by id, within its duplicate window: an outbox written longer ago than half of it (a margin for the writers'
   * clocks) is taken as published, since published again it could be stored twice.
   */
  publishInherited(): void {
    const events = this.inherited;
    if (events.length === 0) return;
    this.inherited = [];
    const newest = Math.max(...events.map((e) => e.at));
    if (Date.now() - newest < DUPLICATE_WINDOW_MS / 2) this.publish(events);
  }

  /**
   * A record written once holds its variables; written again, it names large ones by reference instead of writing them
   * each time (ExecutionRepo.nameVariables): a run of one write (most) pays no put for them.
   */
  private async nameVariables(): Promise<void> {
    if (this.snap.vars === this.varsNamed) return;
    // Masked first, as the write masks the record: what is stored apart is what the record would hold (a debugger's
    // edit may have pasted a secret's value into them).
    const vars = this.masker.inPlace(this.snap.vars);
    this.snap.vars = await this.store.executions.nameVariables(vars, this.snap.ownerId);
    this.varsNamed = this.snap.vars;
  }

  private async update(): Promise<void> {
    for (;;) {
      try {
        // A write that timed out may have landed: the next one then conflicts with it, and the
        // holder, finding itself still holding, adopts its version (adoptConcurrentChange).
        this.version = await retryTransient(() => this.store.executions.update(this.snap, this.version));
        return;
      } catch (err) {
        if (!(err instanceof CasConflictError) || this.role === "guest") throw err;
        const asked = this.snap.cancelRequested;
        await retryTransient(() => this.adoptConcurrentChange());
        // A cancel recorded meanwhile (the edge flags the record before it answers) overrides what this write says:
        // it is not written, and the run ends CANCELLED instead, before the step it starts acts or the end it records.
        if (!asked && this.snap.cancelRequested && this.snap.status !== "CANCELLED")
          throw new CancelledError(this.snap.cancelReason);
      }
    }
  }

  /** Puts the events of a write that was not made back ahead of those emitted since. */
  private keepUnwritten(events: ExecutionEvent[], bytes: number): void {
    this.pending = [...events, ...this.pending];
    this.pendingBytes += bytes;
    this.touch();
  }

  /**
   * Takes back the events of `types` not written yet: the end or park of a run that a cancel recorded meanwhile
   * overrides (CancelledError from a write) is not announced beside the cancel.
   */
  withdraw(types: ReadonlySet<string>): void {
    this.pending = this.pending.filter((e) => !types.has(e.type));
  }

  /**
   * The first write of a deferred start. The record exists already when another delivery of the
   * command created it, or a cancel, or our own create that timed out yet landed: only the last
   * names us as holder, and holds what we wrote.
   */
  private async createDeferred(): Promise<void> {
    try {
      this.version = await retryTransient(() => this.store.executions.create(this.snap));
    } catch (err) {
      if (!(err instanceof AlreadyExistsError)) throw err;
      const current = await retryTransient(() => this.store.executions.getForWrite(this.snap.id));
      if (!current || !sameHolder(current.value.holder, this.holder)) throw new StartTakenError(this.snap.id);
      this.version = current.version;
    }
    this.unstored = false;
    clearTimeout(this.progressTimer);
  }

  /**
   * Only these writers touch a held execution: its holder; a cancel (the edge's, before it answers, and the cancel
   * handler's), which sets `cancelRequested` (and `cancelReason`); and for a debug run, the breakpoints command, which replaces
   * `debug.breakpoints`, and a debugger command's claim of a pause (claimPause) that the run
   * has just written, which sets `debug.claimed`. The holder writes none of these, so it takes
   * them as they are. Anything else means we lost the lease.
   */
  private async adoptConcurrentChange(): Promise<void> {
    // Read where the write lost: a replica may answer another holder the store never took.
    const current = await this.store.executions.getForWrite(this.snap.id);
    if (!current || !sameHolder(current.value.holder, this.holder)) {
      // What the store holds, for the log: a loop of these (a cluster refusing writes at the version it answers) is
      // told apart from a takeover by it.
      const h = current?.value.holder;
      const held = current
        ? `version ${current.version}, ${current.value.status}, held by ${h ? `${h.actor} under command ${h.seq}` : "nobody"}`
        : "missing";
      throw new LostOwnershipError(
        this.snap.id,
        `execution ${this.snap.id} was taken over by another actor: a write at version ${this.version} lost, and the record is ${held}`,
      );
    }
    this.snap.cancelRequested = this.snap.cancelRequested || current.value.cancelRequested;
    if (current.value.cancelReason !== undefined) this.snap.cancelReason ??= current.value.cancelReason;
    const theirs = current.value.debug;
    const ours = this.snap.debug;
    if (theirs && ours) {
      adoptBreakpoints(ours, theirs);
      // Replaced while held: announced here, in the write that takes the replacement up.
      const announced = this.breakpointsAnnouncement();
      if (announced) announceAhead(this.snap.outbox, announced);
      ours.claimed = theirs.claimed;
      this.stampRelease();
    }
    this.version = current.version;
  }

  /** A holder's write that parks the run stamps a standing claim with it (DebugClaim.releasedAt). */
  private stampRelease(): void {
    const claimed = this.snap.debug?.claimed;
    if (this.role === "holder" && this.snap.holder === null && claimed) claimed.releasedAt = Date.now();
  }

  /** Announces breakpoints replaced on the record (changeBreakpoints) that no write announced yet, in this one. */
  private announceBreakpoints(): void {
    const event = this.breakpointsAnnouncement();
    if (event) announceAhead(this.pending, event);
  }

  /**
   * The `debug_breakpoints` event of a replacement not announced yet, numbered, or null. The run's holder numbers its
   * events, so a guest announces only a record nobody holds. Several replacements between two writes are one event: the
   * list as it stands.
   */
  private breakpointsAnnouncement(): ExecutionEvent | null {
    const d = this.snap.debug;
    if (!d || d.breakpointsRevision <= d.breakpointsAnnounced) return null;
    if (this.role === "guest" && this.snap.holder !== null) return null;
    d.breakpointsAnnounced = d.breakpointsRevision;
    const by = d.breakpointsBy ?? "unknown";
    return this.numbered("debug_breakpoints", undefined, { by, breakpoints: d.breakpoints }).event;
  }

  private publish(events: ExecutionEvent[]): void {
    if (events.length === 0) return;
    const acks = this.events.publishAll(
      events.map((e) => ({
        subject: this.subj.event(toToken(e.ownerId), toToken(e.workflowId), e.executionId, e.type),
        data: eventJson(e),
        opts: { msgID: e.id },
      })),
    );
    // Awaited in the next write or settle(); until then a failure must not count as unhandled.
    acks.catch(() => undefined);
    this.acks.push(acks);
  }
}

export type EventPublisher = Pick<JetStreamPublisher, "publishAll">;

/**
 * Adds `announcement`, numbered last, to `events`, one write's (numbered, not published yet): last, or ahead of the end
 * event among them, whose number it takes, the end's and those after it moving on by one. An execution's end event is
 * its last: its followers (the edge's event stream, the console) stop there, and a change written before the end would
 * never be seen announced after it.
 */
function announceAhead(events: ExecutionEvent[], announcement: ExecutionEvent): void {
  const end = events.findIndex((e) => endedStatus(e.type) !== undefined);
  if (end < 0) {
    events.push(announcement);
    return;
  }
  const ids = [...events.slice(end).map((e) => e.id), announcement.id];
  events.splice(end, 0, announcement);
  for (let i = end; i < events.length; i++) events[i]!.id = ids[i - end]!;
}

function sameHolder(a: ExecutionSnapshot["holder"], b: ExecutionSnapshot["holder"]): boolean {
  return a !== null && b !== null && a.actor === b.actor && a.seq === b.seq;
}

/**
 * An event's JSON less its strings' contents and its data: `{"type":"","executionId":"","workflowId":"","ownerId":"",
 * "at":<13 digits>,"id":"<execution id>.<up to 8 digits>","step":"","data":}`.
 */
const EVENT_FIELDS_BYTES = 111;

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text);
}

/**
 * Outputs can be large; events carry a marker instead of values over `maxBytes` of JSON (the snapshot has them). With
 * the bytes of the capped data's JSON (its keys, ours, are ASCII).
 */
function capValues(
  data: Record<string, unknown>,
  maxBytes: number,
  measured?: Record<string, number>,
): { data: Record<string, unknown>; bytes: number } {
  const out: Record<string, unknown> = {};
  let total = 2;
  // for-in, not Object.entries: no pair is made per value of every event.
  for (const k in data) {
    const v = data[k];
    if (v === undefined || !Object.hasOwn(data, k)) continue;
    const bytes = measured?.[k] ?? (typeof v === "object" || typeof v === "string" ? jsonBytes(v) : String(v).length);
    const kept = bytes > maxBytes ? { truncated: true, bytes } : v;
    out[k] = kept;
    total += k.length + 4 + (kept === v ? bytes : jsonBytes(kept));
  }
  return { data: out, bytes: total };
}
