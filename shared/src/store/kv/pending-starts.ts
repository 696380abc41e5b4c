import { JetStreamApiCodes, JetStreamApiError, type JetStreamManager } from "@nats-io/jetstream";
import { checkStart, firstSnapshot } from "../../execution/first-snapshot";
import type { ExecutionSnapshot } from "../../execution/snapshot";
import { StartCommand } from "../../messages/commands";
import { startDefinition, type StoredDefinitions } from "../../nats/stored-definitions";
import { streamNames, subjects } from "../../nats/subjects";

const SUBJECT_TOKEN = /^[^\s.*>]+$/;

/**
 * The start commands of announced executions, read and removed by id: until an executor takes
 * it, an announced execution's command is its only record. The command stream is a work queue,
 * so a command is there until an executor acknowledges it, which it does only after writing the
 * record.
 */
export class PendingStarts {
  readonly #stream: string;
  readonly #subject: (id: string) => string;

  constructor(
    private readonly jsm: JetStreamManager,
    ns: string,
    private readonly definitions: StoredDefinitions,
  ) {
    this.#stream = streamNames(ns).cmd;
    this.#subject = subjects(ns).execStart;
  }

  /** The PENDING snapshot the start command describes, or null when there is none (or it names no definition). */
  async get(id: string): Promise<ExecutionSnapshot | null> {
    // An id from a URL may be anything: only one subject token names a command.
    if (!SUBJECT_TOKEN.test(id)) return null;
    let stored;
    try {
      stored = await this.jsm.streams.getMessage(this.#stream, { last_by_subj: this.#subject(id) });
    } catch (err) {
      // A store opened without the service's streams (a tool, a test) has no pending starts.
      if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return null;
      throw err;
    }
    if (stored === null) return null;
    const cmd = StartCommand.safeParse(stored.json());
    if (!cmd.success || cmd.data.executionId !== id) return null;
    // Commands of earlier versions, and of starts that wrote the record first, leave the definition out.
    const definition = await startDefinition(cmd.data.workflow, this.definitions);
    if (definition === undefined || definition === null) return null;
    return firstSnapshot(
      cmd.data,
      checkStart(definition, cmd.data.inputs, cmd.data.workflow.ownerId),
      "PENDING",
      null,
      cmd.data.requestedAt,
    );
  }

  /** Removes the start command of `id`, if one is stored; one an executor holds may still run. */
  async remove(id: string): Promise<void> {
    if (!SUBJECT_TOKEN.test(id)) return;
    try {
      await this.jsm.streams.purge(this.#stream, { filter: this.#subject(id) });
    } catch (err) {
      if (!(err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound)) throw err;
    }
  }
}
