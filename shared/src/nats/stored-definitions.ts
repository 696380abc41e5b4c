import { createHash } from "node:crypto";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Logger } from "../log";
import { definitionJson, frozenOfJson, isShared, sharedDefinitionOfJson } from "../execution/parsed-definitions";
import { OwnerLru } from "../pools/owner-lru.mjs";
import { openKvBucket } from "./buckets";
import { definitionsTtlMs, NAME_WITHIN_MS, REFRESH_AFTER_MS } from "./definition-keeping";
import type { StreamPlacement } from "./placement";
import { isNotFound } from "./streams";
import { retryTransient } from "./transient";
import { whileStarting } from "./while-starting";
import { isWrongLastSequence } from "./wrong-last-sequence";

/** `<ns>_definitions`: workflow definitions by the SHA-256 of their JSON. */
export function definitionsBucket(ns: string): string {
  return `${ns}_definitions`;
}

/** A definition's reference: the SHA-256 of its JSON, base64url (a KV key as it is). */
export function definitionRef(json: string): string {
  return createHash("sha256").update(json).digest("base64url");
}

/** The form of a reference: anything else in a command names nothing, and is not looked up. */
const REF = /^[A-Za-z0-9_-]{43}$/;

/**
 * The definition a start command carries, or the one its reference names: null when none is stored under it; undefined
 * when the command has neither (its starter wrote the PENDING record).
 */
export function startDefinition(
  workflow: { ownerId: string; definition?: unknown; definitionRef?: string | undefined },
  stored: StoredDefinitions,
): Promise<unknown> {
  if (workflow.definition !== undefined || workflow.definitionRef === undefined)
    return Promise.resolve(workflow.definition);
  return stored.get(workflow.definitionRef, workflow.ownerId);
}

/**
 * Definitions read by reference, by every holder in this process: content-addressed, so one process-wide table
 * serves them all. Owners share its room fairly (OwnerLru): one owner's many definitions push out its own, each
 * of which then costs its next start a read from the bucket.
 */
const byRef = new OwnerLru<string, unknown>(1024, 8 * 1024 * 1024);
/** A definition larger than this is read from the bucket at each use. */
const ONE_MAX_CHARS = 1024 * 1024;

/** What a starter brings the bucket to: its placement, and the retention its entries outlive (WF_EXECUTION_RETENTION). */
interface Writer {
  placement: StreamPlacement;
  retentionMs: number | null;
}

/**
 * What a stored value is: a workflow definition, shared by every execution of it; or another value a record names by
 * reference (an execution's large variables: execution-form.ts), read by one execution, kept out of the table above.
 */
export type Kind = "definition" | "value";

/**
 * A definition (or value) known stored in a bucket: its reference, when it was last put there, at the latest (ms), and
 * what it is.
 */
interface Stored {
  ref: string;
  putAt: number;
  kind: Kind;
}

/**
 * By bucket (a namespace's), the definitions known stored there: a record of an execution of one names it so
 * (execution-form.ts). Not bounded by the table above: an entry lives as long as its definition is held.
 */
const storedIn = new Map<string, WeakMap<object, Stored>>();

function remember(
  bucket: string,
  ref: string,
  owner: string,
  definition: unknown,
  chars: number,
  putAt: number,
  kind: Kind,
): void {
  if (typeof definition === "object" && definition !== null) {
    let stored = storedIn.get(bucket);
    if (stored === undefined) {
      stored = new WeakMap();
      storedIn.set(bucket, stored);
    }
    const known = stored.get(definition);
    if (known === undefined || known.putAt < putAt) stored.set(definition, { ref, putAt, kind });
  }
  if (kind === "definition" && chars <= ONE_MAX_CHARS) byRef.set(ref, owner, definition, chars);
}

/**
 * The definitions a start command names by reference instead of carrying: a workflow's definition (its steps' code
 * and prompts) is most of a real start command, and every start of a version carried it again through the command
 * stream and the executor's parse. A starter stores each shared definition once (`refOf`) and its commands name it;
 * a reader (the executor, a read of a PENDING execution) finds it here, or in the bucket once per process.
 *
 * With a retention (WF_EXECUTION_RETENTION), an entry expires some days after the records that name it could
 * (definition-keeping.ts): a process puts a definition again before it names it once its last put is a day old, and
 * names only one put within two days; the scheduler puts again those of executions that wait for long. With retention
 * off, entries are kept for good, as the records are.
 *
 * An execution's large variables are kept here by the same rules (`kind` "value"), named by its record from its second
 * write on (ExecutionRepo.nameVariables).
 */
export class StoredDefinitions {
  readonly #bucket: string;
  #kv: Promise<KV> | null = null;
  /** Shared definitions being put, by identity: starts at once of one not yet stored (or due again) put it once. */
  readonly #putting = new WeakMap<object, Promise<string | null>>();
  readonly #reading = new Map<string, Promise<unknown>>();

  readonly #writer: Writer | undefined;
  readonly #log: Pick<Logger, "warn"> | undefined;
  readonly #clock: () => number;

  /**
   * A starter (`writer`) gives the placement the bucket is created at where it is missing and the retention its entries
   * outlive, both of which it brings an existing bucket to, and the `log` told when a definition could not be stored;
   * a reader only opens the bucket, and finds nothing where no starter made it. `clock`: what it takes the time from.
   */
  constructor(
    private readonly nc: NatsConnection,
    ns: string,
    opts: { writer?: Writer; log?: Pick<Logger, "warn">; clock?: () => number } = {},
  ) {
    this.#bucket = definitionsBucket(ns);
    this.#writer = opts.writer;
    this.#log = opts.log;
    this.#clock = opts.clock ?? Date.now;
  }

  /**
   * The reference of `owner`'s shared (frozen) definition, stored first (or put again: REFRESH_AFTER_MS); null for one
   * that is not shared, or when it could not be stored: the command then carries the definition, as before.
   */
  refOf(definition: unknown, owner: string, kind: Kind = "definition"): Promise<string | null> {
    if (!isShared(definition)) return Promise.resolve(null);
    const known = this.#known(definition);
    if (known !== undefined && this.#clock() - known.putAt < REFRESH_AFTER_MS) return Promise.resolve(known.ref);
    return this.#put(definition, owner, this.#clock(), kind);
  }

  /**
   * Puts `definition` again if it is known stored here and its last put is REFRESH_AFTER_MS old at `now`: what an
   * execution that waits for long (an approval) needs of the definition its record names. Stores nothing else.
   */
  async refresh(definition: unknown, owner: string, now: number): Promise<void> {
    const known = this.#known(definition);
    if (known !== undefined && now - known.putAt >= REFRESH_AFTER_MS)
      await this.#put(definition as object, owner, now, known.kind);
  }

  /**
   * The reference under which `definition` is known stored in this bucket (by this process), if it is, and put recently
   * enough (NAME_WITHIN_MS) that a record written now may name it.
   */
  storedRef(definition: unknown): string | undefined {
    const known = this.#known(definition);
    return known !== undefined && this.#clock() - known.putAt < NAME_WITHIN_MS ? known.ref : undefined;
  }

  #known(definition: unknown): Stored | undefined {
    return typeof definition === "object" && definition !== null
      ? storedIn.get(this.#bucket)?.get(definition)
      : undefined;
  }

  /** A starter's, its bucket opened (and created where it is missing) before its first start. */
  static async open(
    nc: NatsConnection,
    ns: string,
    placement: StreamPlacement,
    log: Pick<Logger, "warn">,
    retentionMs: number | null,
    clock?: () => number,
  ): Promise<StoredDefinitions> {
    const definitions = new StoredDefinitions(nc, ns, {
      writer: { placement, retentionMs },
      log,
      ...(clock ? { clock } : {}),
    });
    await definitions.#open();
    return definitions;
  }

  /**
   * The definition `ref` names, shared (sharedDefinition); null when no definition is stored under it. `owner` is
   * whose execution it is for, whose share of the table it takes. A value (`kind`) is read from the bucket each time,
   * a frozen copy of its own (frozenOfJson), and never taken into the table.
   */
  get(ref: string, owner: string, kind: Kind = "definition"): Promise<unknown> {
    const known = kind === "definition" ? byRef.get(ref) : undefined;
    if (known !== undefined) return Promise.resolve(known);
    return this.#get(ref, owner, kind);
  }

  async #get(ref: string, owner: string, kind: Kind): Promise<unknown> {
    if (!REF.test(ref)) return null;
    const key = `${kind}:${ref}`;
    let reading = this.#reading.get(key);
    if (reading === undefined) {
      reading = this.#read(ref, owner, kind).finally(() => this.#reading.delete(key));
      this.#reading.set(key, reading);
    }
    return reading;
  }

  #put(definition: object, owner: string, now: number, kind: Kind): Promise<string | null> {
    let putting = this.#putting.get(definition);
    if (putting === undefined) {
      putting = this.#store(definition, owner, now, kind).finally(() => this.#putting.delete(definition));
      this.#putting.set(definition, putting);
    }
    return putting;
  }

  /**
   * Stores `definition` unless an entry put within REFRESH_AFTER_MS of `now` holds it; null (and a warning) when it
   * cannot.
   */
  async #store(definition: object, owner: string, now: number, kind: Kind): Promise<string | null> {
    const json = definitionJson(definition);
    const ref = definitionRef(json);
    let putAt = now;
    try {
      const kv = await this.#open();
      const made = await retryTransient(() => kv.create(ref, json)).then(
        () => true,
        (err: unknown) => (isWrongLastSequence(err) ? false : Promise.reject(err)),
      );
      if (!made) {
        // Stored by another start (or process) before: put again only if that was long enough ago, or is not it.
        const entry = await retryTransient(() => kv.get(ref));
        const fresh = entry?.operation === "PUT" && now - entry.created.getTime() < REFRESH_AFTER_MS;
        if (fresh && entry.string() === json) putAt = entry.created.getTime();
        else await retryTransient(() => kv.put(ref, json));
      }
    } catch (err) {
      // Tried again at the next start: a bucket electing its leader is no reason to carry definitions for good.
      const carried =
        kind === "definition"
          ? "could not store a workflow definition: its start commands carry it"
          : "could not store an execution's variables: its record holds them";
      this.#log?.warn(carried, { err, ref });
      return null;
    }
    remember(this.#bucket, ref, owner, definition, json.length, putAt, kind);
    return ref;
  }

  async #read(ref: string, owner: string, kind: Kind): Promise<unknown> {
    const kv = await this.#open();
    // No starter made the bucket yet: nothing is stored by reference.
    const entry = await retryTransient(() => kv.get(ref)).catch((err: unknown) =>
      isNotFound(err) ? null : Promise.reject(err),
    );
    const found =
      entry?.operation === "PUT" ? { json: entry.string(), at: entry.created.getTime() } : await this.#readLeader(ref);
    // Whatever wrote it, the definition is the one its reference names, or none.
    if (found === null || definitionRef(found.json) !== ref) return null;
    const value = kind === "definition" ? sharedDefinitionOfJson(found.json, owner) : frozenOfJson(found.json);
    remember(this.#bucket, ref, owner, value, found.json.length, found.at, kind);
    return value;
  }

  /**
   * The entry as the bucket's leader holds it. A direct get may be answered by a replica that has not applied the put a
   * start made just before it published its command (on a cluster, the chaos test's console start failed "the workflow
   * definition the start command names is not stored" so): a miss there is asked again of the leader.
   */
  async #readLeader(ref: string): Promise<{ json: string; at: number } | null> {
    const jsm = await jetstreamManager(this.nc);
    const stream = `KV_${this.#bucket}`;
    const m = await retryTransient(() =>
      jsm.streams.getMessage(stream, { last_by_subj: `$KV.${this.#bucket}.${ref}` }),
    ).catch((err: unknown) => (isNotFound(err) ? null : Promise.reject(err)));
    const operation = m?.header?.get("KV-Operation");
    if (!m || operation === "DEL" || operation === "PURGE") return null;
    return { json: m.string(), at: m.time.getTime() };
  }

  #open(): Promise<KV> {
    this.#kv ??= (this.#writer ? this.#openAt(this.#writer) : new Kvm(this.nc).open(this.#bucket)).catch(
      (err: unknown) => {
        this.#kv = null;
        throw err;
      },
    );
    return this.#kv;
  }

  async #openAt({ placement, retentionMs }: Writer): Promise<KV> {
    const ttlMs = definitionsTtlMs(retentionMs);
    if (ttlMs !== undefined) await whileStarting(() => this.#beforeExpiring());
    return openKvBucket(this.nc, this.#bucket, { history: 1, keeps: true, ...(ttlMs ? { ttlMs } : {}) }, placement);
  }

  /**
   * A bucket whose entries never expired (made before they did, or with retention off) is about to: each entry is put
   * again first, or records naming one put long ago would lose it at once.
   */
  async #beforeExpiring(): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    const info = await jsm.streams
      .info(`KV_${this.#bucket}`)
      .catch((err: unknown) => (isNotFound(err) ? null : Promise.reject(err)));
    if (info === null || info.config.max_age > 0) return;
    const kv = await new Kvm(this.nc).open(this.#bucket);
    // Listed first: the puts below add to the stream the listing reads.
    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    for (const key of keys) {
      const entry = await retryTransient(() => kv.get(key));
      if (entry?.operation === "PUT") await retryTransient(() => kv.put(key, entry.value));
    }
  }
}
