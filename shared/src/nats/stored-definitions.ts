import { createHash } from "node:crypto";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import type { Logger } from "../log";
import { definitionJson, isShared, sharedDefinition } from "../execution/parsed-definitions";
import { OwnerLru } from "../pools/owner-lru";
import { openKvBucket } from "./buckets";
import type { StreamPlacement } from "./placement";
import { isNotFound } from "./streams";
import { retryTransient } from "./transient";
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

/**
 * By bucket (a namespace's), the references of definitions known stored there, by the definition: a record of an
 * execution of one names it so (execution-form.ts). Not bounded by the table above: an entry lives as long as its
 * definition is held.
 */
const storedIn = new Map<string, WeakMap<object, string>>();

function remember(bucket: string, ref: string, owner: string, definition: unknown, chars: number): void {
  if (typeof definition === "object" && definition !== null) {
    let stored = storedIn.get(bucket);
    if (stored === undefined) {
      stored = new WeakMap();
      storedIn.set(bucket, stored);
    }
    stored.set(definition, ref);
  }
  if (chars <= ONE_MAX_CHARS) byRef.set(ref, owner, definition, chars);
}

/**
 * The definitions a start command names by reference instead of carrying: a workflow's definition (its steps' code
 * and prompts) is most of a real start command, and every start of a version carried it again through the command
 * stream and the executor's parse. A starter stores each shared definition once (`refOf`) and its commands name it;
 * a reader (the executor, a read of a PENDING execution) finds it here, or in the bucket once per process.
 *
 * Entries are never removed: a definition is written once per distinct JSON of a saved workflow version, as small
 * as the version itself, and commands and records name it for as long as they are kept.
 */
export class StoredDefinitions {
  readonly #bucket: string;
  #kv: Promise<KV> | null = null;
  /** Shared definitions being stored, by identity: starts at once of one not yet stored write it once. */
  readonly #stored = new WeakMap<object, Promise<string | null>>();
  readonly #reading = new Map<string, Promise<unknown>>();

  readonly #placement: StreamPlacement | undefined;
  readonly #log: Pick<Logger, "warn"> | undefined;

  /**
   * A starter gives the `placement` the bucket is created at where it is missing, and the `log` told when a
   * definition could not be stored; a reader only opens the bucket, and finds nothing where no starter made it.
   */
  constructor(
    private readonly nc: NatsConnection,
    ns: string,
    opts: { placement?: StreamPlacement; log?: Pick<Logger, "warn"> } = {},
  ) {
    this.#bucket = definitionsBucket(ns);
    this.#placement = opts.placement;
    this.#log = opts.log;
  }

  /**
   * The reference of `owner`'s shared (frozen) definition, stored first; null for one that is not shared, or when it
   * could not be stored: the command then carries the definition, as before.
   */
  refOf(definition: unknown, owner: string): Promise<string | null> {
    if (!isShared(definition)) return Promise.resolve(null);
    const known = this.storedRef(definition);
    if (known !== undefined) return Promise.resolve(known);
    let ref = this.#stored.get(definition);
    if (ref === undefined) {
      ref = this.#store(definition, owner);
      this.#stored.set(definition, ref);
      // Tried again at the next start: a bucket electing its leader is no reason to carry definitions for good.
      void ref.then((r) => r ?? this.#stored.delete(definition));
    }
    return ref;
  }

  /** The reference under which `definition` is known stored in this bucket (by this process), if it is. */
  storedRef(definition: unknown): string | undefined {
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
  ): Promise<StoredDefinitions> {
    const definitions = new StoredDefinitions(nc, ns, { placement, log });
    await definitions.#open();
    return definitions;
  }

  /**
   * The definition `ref` names, shared (sharedDefinition); null when no definition is stored under it. `owner` is
   * whose execution it is for, whose share of the table it takes.
   */
  async get(ref: string, owner: string): Promise<unknown> {
    const known = byRef.get(ref);
    if (known !== undefined) return known;
    if (!REF.test(ref)) return null;
    let reading = this.#reading.get(ref);
    if (reading === undefined) {
      reading = this.#read(ref, owner).finally(() => this.#reading.delete(ref));
      this.#reading.set(ref, reading);
    }
    return reading;
  }

  async #store(definition: object, owner: string): Promise<string | null> {
    const json = definitionJson(definition);
    const ref = definitionRef(json);
    try {
      const kv = await this.#open();
      await retryTransient(() => kv.create(ref, json)).catch((err: unknown) => {
        // Stored by another start (or process) before: the same JSON, as its key says.
        if (!isWrongLastSequence(err)) throw err;
      });
    } catch (err) {
      this.#log?.warn("could not store a workflow definition: its start commands carry it", { err, ref });
      return null;
    }
    remember(this.#bucket, ref, owner, definition, json.length);
    return ref;
  }

  async #read(ref: string, owner: string): Promise<unknown> {
    const kv = await this.#open();
    // No starter made the bucket yet: nothing is stored by reference.
    const entry = await retryTransient(() => kv.get(ref)).catch((err: unknown) =>
      isNotFound(err) ? null : Promise.reject(err),
    );
    if (entry === null || entry.operation !== "PUT") return null;
    const json = entry.string();
    // Whatever wrote it, the definition is the one its reference names, or none.
    if (definitionRef(json) !== ref) return null;
    const definition = sharedDefinition(JSON.parse(json) as unknown);
    remember(this.#bucket, ref, owner, definition, json.length);
    return definition;
  }

  #open(): Promise<KV> {
    this.#kv ??= (
      this.#placement
        ? openKvBucket(this.nc, this.#bucket, { history: 1, keeps: true }, this.#placement)
        : new Kvm(this.nc).open(this.#bucket)
    ).catch((err: unknown) => {
      this.#kv = null;
      throw err;
    });
    return this.#kv;
  }
}
