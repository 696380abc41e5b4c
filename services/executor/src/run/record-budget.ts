import {
  definitionJson,
  recordRoom,
  type ExecutionSnapshot,
  type ResultLimits,
  type StepState,
} from "@wf/shared/execution";
import type { SecretMasker } from "@wf/shared/secrets";
import { jsonTextOf } from "@wf/shared/text";
import { cutLogs, cutMeasured, cutText, jsonBytes } from "./result-limits";

/**
 * Keeps an execution's record within what NATS carries: a step's output, input, log and error
 * are masked, then cut to their limits; a step whose result would take the record past its room
 * (max_payload less what its own output, error and pending events need) fails saying so, so that
 * no write is refused. Sizes are tracked per step state: the snapshot is serialised once a run.
 */
export class RecordBudget {
  readonly #sizes = new Map<string, number>();
  readonly #others: number;
  #steps = 0;
  /** What the definition takes of the record, for the definition and the secrets it was worked out for. */
  #definition: { of: unknown; secrets: number; bytes: number } | undefined;

  /**
   * `named`: what the store's record spends naming a definition by reference in place of holding it, or null where
   * it holds it whole (ExecutionRepo.namedDefinitionBytes).
   */
  constructor(
    private readonly snap: ExecutionSnapshot,
    readonly limits: ResultLimits,
    private readonly masker: SecretMasker,
    private readonly named: (definition: unknown) => number | null = () => null,
  ) {
    this.#others = jsonBytes({ ...snap, definition: undefined, steps: {}, outbox: [], output: undefined });
    for (const [path, st] of Object.entries(snap.steps)) this.account(path, st);
  }

  /** The most the definition, the variables and the step states may take together. */
  get room(): number {
    return recordRoom(this.limits);
  }

  /** The record's size as accounted, less the execution's output and the events awaiting a write. */
  get used(): number {
    return this.#others + this.#definitionBytes() + this.#steps;
  }

  /**
   * A definition named by reference takes a few bytes; one held whole, its JSON (kept with it: parsed-definitions.ts)
   * and `,"definition":`. One holding a secret's value is written whole, masked, whatever the store does: worked out
   * again when the run's secrets grow, or its snapshot takes a masked copy.
   */
  #definitionBytes(): number {
    const definition = this.snap.definition;
    const known = this.#definition;
    if (known !== undefined && known.of === definition && known.secrets === this.masker.count) return known.bytes;
    const named = definition === undefined || this.masker.holds(definition) ? null : this.named(definition);
    const bytes = definition === undefined ? 0 : (named ?? 14 + Buffer.byteLength(definitionJson(definition)));
    this.#definition = { of: definition, secrets: this.masker.count, bytes };
    return bytes;
  }

  /**
   * The output as the record keeps it, with its JSON's bytes for admit and the step's event: measured once, from the
   * text its runner wrote where it is known (json-texts.ts).
   */
  output(value: unknown): { value: unknown; bytes: number } {
    return this.#cut(value, this.limits.outputBytes, "output");
  }

  input(value: unknown): unknown {
    return this.#cut(value, this.limits.inputBytes, "input").value;
  }

  /** Masked first: masking forgets a text that no longer is the value's. */
  #cut(value: unknown, maxBytes: number, what: string): { value: unknown; bytes: number } {
    const masked = this.masker.inPlace(value);
    const text = jsonTextOf(masked);
    return cutMeasured(masked, maxBytes, what, text === undefined ? undefined : Buffer.byteLength(text));
  }

  error(text: string): string {
    return cutText(this.masker.text(text), this.limits.errorBytes, "error");
  }

  logs(lines: string[]): string[] {
    return cutLogs(this.masker.inPlace(lines), this.limits.logBytes);
  }

  /** Whether `st`, as it now is, fits beside everything else the record holds. */
  fits(path: string, st: StepState): boolean {
    return this.#fits(path, stateBytes(path, st));
  }

  /**
   * Records `st` if it fits and returns null; else takes its bulky parts out (output, input,
   * log, tool calls, approved rows), records what is left, and returns the error the step fails
   * with, which names `what` did not fit. `outputBytes`: the bytes of `st.output`'s JSON, where the caller has them.
   */
  admit(path: string, st: StepState, what: string, outputBytes?: number): string | null {
    const bytes = stateBytes(path, st, outputBytes);
    if (this.#fits(path, bytes)) {
      this.#record(path, bytes);
      return null;
    }
    shedBulk(st);
    this.account(path, st);
    // What the variables take of the record (a start's inputs may fill most of its room), counted only here: inputs
    // that leave the steps little room are what to fix, not the step that found none left.
    const vars = jsonBytes(this.snap.vars);
    const advice =
      vars > this.#steps
        ? "pass large inputs by reference: a URL, or a file a step reads"
        : "keep outputs smaller, or write large results to WF_ARTIFACTS_DIR as artifacts";
    return (
      `${what} (${bytes} bytes) would take the execution's record past its room: it holds ${this.used} bytes ` +
      `already and may hold ${this.room} (the NATS server's max_payload is ${this.limits.recordBytes}, part of it ` +
      `kept for the execution's output and events); its variables take ${vars} bytes of it, its definition ` +
      `${this.#definitionBytes()} and its steps ${this.#steps}; ${advice}`
    );
  }

  /** Records a failed step's state, less its bulky parts if it does not fit; says whether any were taken out. */
  admitFailed(path: string, st: StepState): boolean {
    const bytes = stateBytes(path, st);
    if (this.#fits(path, bytes)) {
      this.#record(path, bytes);
      return false;
    }
    const shed = shedBulk(st);
    this.account(path, st);
    return shed;
  }

  account(path: string, st: StepState): void {
    this.#record(path, stateBytes(path, st));
  }

  #fits(path: string, bytes: number): boolean {
    return this.used - (this.#sizes.get(path) ?? 0) + bytes <= this.room;
  }

  #record(path: string, bytes: number): void {
    this.#steps += bytes - (this.#sizes.get(path) ?? 0);
    this.#sizes.set(path, bytes);
  }

  forget(path: string): void {
    this.#steps -= this.#sizes.get(path) ?? 0;
    this.#sizes.delete(path);
  }
}

/** Takes out what a step state may hold in bulk; says whether it held any. */
function shedBulk(st: StepState): boolean {
  const held = [st.output, st.input, st.logs, st.toolCalls, st.approved].some((v) => v !== undefined);
  delete st.output;
  delete st.input;
  delete st.logs;
  delete st.toolCalls;
  delete st.approved;
  return held;
}

/**
 * A step state's share of the record: `"<path>":<state>,`. With the bytes of its output's JSON known, the output is
 * counted as `,"output":<output>` beside the rest (a state always holds a status).
 */
function stateBytes(path: string, st: StepState, outputBytes?: number): number {
  const own =
    outputBytes === undefined || st.output === undefined
      ? jsonBytes(st)
      : jsonBytes({ ...st, output: undefined }) + OUTPUT_KEY_BYTES + outputBytes;
  return jsonBytes(path) + 2 + own;
}

const OUTPUT_KEY_BYTES = ',"output":'.length;
