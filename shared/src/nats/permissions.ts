import { END_EVENT_TYPES } from "../execution/snapshot";
import {
  approvalQueues,
  consumerNames,
  executorQueues,
  streamNames,
  subjects,
  timerQueues,
  triggerQueues,
} from "./subjects";

/**
 * What each service may do on NATS, granted by what its code touches (subjects, durable
 * consumers, buckets and streams): the source of `deploy/nats/auth.conf` and of the tests that
 * run the services under it (docs/operations.md#users-and-permissions). Replies come to an inbox
 * prefix of each service's own, so that no service reads the answers sent to another.
 */

export const SERVICE_USERS = ["edge", "executor", "approvals", "scheduler"] as const;
export type ServiceUser = (typeof SERVICE_USERS)[number];

/** Where a service's replies arrive: its connections are opened with this prefix. */
export function inboxPrefix(service: string): string {
  return `_INBOX_${service}`;
}

/** The record types of the KV store: bucket `<ns>_<type>` and its index `<ns>_<type>_idx`. */
export const STORE_TYPES = [
  "workflows",
  "executions",
  "approvals",
  "artifacts",
  "webhooks",
  "users",
  "api_keys",
  "audit",
  "secrets",
  "chain_runs",
  "schedules",
] as const;
type StoreType = (typeof STORE_TYPES)[number];

export interface Permissions {
  publish: string[];
  subscribe: string[];
  /** May answer the requests it receives (nats-server's allow_responses), without a grant on its callers' inboxes. */
  responses?: true;
}

type Access = "read" | "write";

class Grants {
  readonly #publish = new Set<string>();
  readonly #subscribe = new Set<string>();
  #responses = false;

  constructor(private readonly ns: string) {}

  publish(...subjects: string[]): this {
    for (const s of subjects) this.#publish.add(s);
    return this;
  }

  subscribe(...subjects: string[]): this {
    for (const s of subjects) this.#subscribe.add(s);
    return this;
  }

  /** Knows the stream is there, and may create it when it is not. */
  private exists(stream: string): this {
    return this.publish(`$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`);
  }

  /** Reads any message of the stream: direct and stored gets, and ephemeral consumers. */
  read(stream: string): this {
    return this.publish(
      `$JS.API.DIRECT.GET.${stream}`,
      `$JS.API.DIRECT.GET.${stream}.>`,
      `$JS.API.STREAM.MSG.GET.${stream}`,
      `$JS.API.CONSUMER.CREATE.${stream}`,
      `$JS.API.CONSUMER.CREATE.${stream}.>`,
      `$JS.API.CONSUMER.INFO.${stream}.>`,
      `$JS.API.CONSUMER.DELETE.${stream}.>`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.>`,
      `$JS.FC.${stream}.>`,
    );
  }

  kv(bucket: string, access: Access): this {
    const stream = `KV_${bucket}`;
    this.exists(stream).read(stream);
    // A writer also brings the bucket to the configured replicas and TTL (reconcileStream).
    return access === "write"
      ? this.publish(`$KV.${bucket}.>`, `$JS.API.STREAM.PURGE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`)
      : this;
  }

  /** Both buckets of a record type of the KV store. */
  records(type: StoreType, access: Access): this {
    return this.kv(`${this.ns}_${type}`, access).kv(`${this.ns}_${type}_idx`, access);
  }

  objects(bucket: string, access: Access): this {
    const stream = `OBJ_${bucket}`;
    this.exists(stream).read(stream);
    return access === "write"
      ? this.publish(`$O.${bucket}.>`, `$JS.API.STREAM.PURGE.${stream}`, `$JS.API.STREAM.UPDATE.${stream}`)
      : this;
  }

  /** One key of a KV bucket only: read, and created where it is missing. */
  kvKey(bucket: string, key: string): this {
    return this.exists(`KV_${bucket}`).publish(
      `$JS.API.STREAM.UPDATE.KV_${bucket}`,
      `$KV.${bucket}.${key}`,
      `$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.${key}`,
    );
  }

  /** Pulls from (and sets up) one durable consumer, and acknowledges what it gets. */
  durable(stream: string, name: string): this {
    return this.publish(
      `$JS.API.CONSUMER.CREATE.${stream}.${name}`,
      `$JS.API.CONSUMER.CREATE.${stream}.${name}.>`,
      `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${name}`,
      `$JS.API.CONSUMER.INFO.${stream}.${name}`,
      `$JS.API.CONSUMER.MSG.NEXT.${stream}.${name}`,
      `$JS.ACK.${stream}.${name}.>`,
    );
  }

  /**
   * A work queue's durable consumer, with the rescue of its orphans (orphans.ts): it reads them,
   * publishes them again on their subjects (`filter`), and removes the originals.
   */
  workQueue(stream: string, name: string, filter: string): this {
    return this.durable(stream, name)
      .exists(stream)
      .publish(`$JS.API.STREAM.MSG.GET.${stream}`, `$JS.API.STREAM.MSG.DELETE.${stream}`, filter);
  }

  /** Work queues of one stream: [consumer, filter] each. */
  workQueues(stream: string, queues: Array<[string, string]>): this {
    for (const [name, filter] of queues) this.workQueue(stream, name, filter);
    return this;
  }

  durables(stream: string, names: string[]): this {
    for (const name of names) this.durable(stream, name);
    return this;
  }

  /** What every service of the namespace needs. */
  base(service: ServiceUser): this {
    this.publish("$JS.API.INFO").subscribe(`${inboxPrefix(service)}.>`);
    for (const stream of Object.values(streamNames(this.ns)))
      this.exists(stream).publish(`$JS.API.STREAM.UPDATE.${stream}`);
    // openKvStore opens every bucket of the store; the data of those not granted below stays out of reach.
    for (const type of STORE_TYPES) this.exists(`KV_${this.ns}_${type}`).exists(`KV_${this.ns}_${type}_idx`);
    return this.exists(`KV_${this.ns}_user_emails`);
  }

  /** Server keys: the check of each one the service uses, and its copy in `<ns>_edge` that it erases. */
  serverKeys(...keys: { check: string; legacy: string }[]): this {
    const legacy = `${this.ns}_edge`;
    this.publish(`$JS.API.STREAM.INFO.KV_${legacy}`, `$JS.API.STREAM.MSG.DELETE.KV_${legacy}`);
    for (const key of keys)
      this.kvKey(`${this.ns}_key_checks`, key.check).publish(
        `$JS.API.DIRECT.GET.KV_${legacy}.$KV.${legacy}.${key.legacy}`,
      );
    return this;
  }

  /** Answers the requests it receives (a service on core NATS). */
  respond(): this {
    this.#responses = true;
    return this;
  }

  build(): Permissions {
    return {
      publish: [...this.#publish],
      subscribe: [...this.#subscribe],
      ...(this.#responses ? { responses: true as const } : {}),
    };
  }
}

const OWNER_SECRETS = { check: "ownerSecrets", legacy: "owner-secrets-key" };
const WEBHOOK_SECRETS = { check: "webhookSecrets", legacy: "webhook-secret-key" };
const URL_SIGNING = { check: "urlSigning", legacy: "url-signing-key" };

/** The least each service needs, in namespace `ns`. */
export function servicePermissions(ns: string): Record<ServiceUser, Permissions> {
  const names = namesIn(ns);
  return {
    edge: edgePermissions(names),
    executor: executorPermissions(names),
    approvals: approvalsPermissions(names),
    scheduler: schedulerPermissions(names),
  };
}

/** The subjects, streams and consumers of namespace `ns` that the grants name. */
function namesIn(ns: string) {
  const subj = subjects(ns);
  return {
    ns,
    subj,
    streams: streamNames(ns),
    consumers: consumerNames(),
    cmd: `${ns}.cmd`,
    // A command consumer's audit event for a message it dropped (consumeCommands).
    dropped: subj.audit("command_dropped"),
  };
}
type Names = ReturnType<typeof namesIn>;

function edgePermissions({ ns, subj, streams, cmd }: Names): Permissions {
  return (
    new Grants(ns)
      .base("edge")
      // The console creates, edits, shares and deletes workflows and changes passwords; it asks the
      // executors to keep secrets (<ns>.svc.secrets), whose key and records the edge never holds.
      .records("workflows", "write")
      .records("users", "write")
      .kv(`${ns}_user_emails`, "read")
      .records("artifacts", "read")
      .records("executions", "write")
      .records("approvals", "write")
      .records("webhooks", "write")
      .records("api_keys", "write")
      .records("audit", "write")
      .kv(`${ns}_ratelimits`, "write")
      .kv(`${ns}_sessions`, "write")
      .kv(`${ns}_webhookstats`, "write")
      .kv(`${ns}_webhookreplay`, "write")
      // Stored workflows' definitions, which its start commands name by reference.
      .kv(`${ns}_definitions`, "write")
      .objects(`${ns}_artifacts`, "read")
      .serverKeys(WEBHOOK_SECRETS, URL_SIGNING)
      .publish(subj.secrets)
      // A PENDING execution is read from its start command, and a failed start removes it.
      .publish(`$JS.API.STREAM.MSG.GET.${streams.cmd}`, `$JS.API.STREAM.PURGE.${streams.cmd}`)
      .publish(
        subj.execStartAll,
        `${cmd}.exec.cancel.*`,
        `${cmd}.approvals.*.approve.*`,
        `${cmd}.approvals.*.reject.*`,
        `${ns}.audit.>`,
      )
      // Debugger commands, claimed on the execution's record first.
      .publish(`${cmd}.exec.debug.*`)
      // How slowly it answers triggers: the executors yield to them while it is slow.
      .publish(subj.edgeLatency)
      // The start lanes' backlogs, which the executors report: a start goes to its owner's less busy lane.
      .subscribe(subj.laneBacklog)
      // The console's event streams: an ordered consumer each, and a get that finds an execution's next event.
      .read(streams.evt)
      .build()
  );
}

function executorPermissions({ ns, subj, streams, cmd, dropped }: Names): Permissions {
  return (
    new Grants(ns)
      .base("executor")
      .records("workflows", "read")
      // An owner's account: its plan (its share of the sandbox's pools), its egress list, and
      // whether it may start the workflow a sub-workflow step names.
      .records("users", "read")
      // Written only to re-seal the secrets under a new key (an upgrade); it holds that key anyway.
      .records("secrets", "write")
      .records("executions", "write")
      // Definitions named by reference in commands and records; those it runs, stored so that its records name them.
      .kv(`${ns}_definitions`, "write")
      // Each owner's sub-workflow starts a minute and artifact bytes a day, counted beside the API keys' requests.
      .kv(`${ns}_ratelimits`, "write")
      .records("approvals", "write")
      .records("artifacts", "write")
      .objects(`${ns}_artifacts`, "write")
      .serverKeys(OWNER_SECRETS)
      .workQueues(
        streams.cmd,
        executorQueues(ns).map((q) => [q.durable, q.filter]),
      )
      .subscribe(subj.execCancelAll, subj.secrets, subj.holdsAll, subj.edgeLatency)
      // Whether another executor still runs an execution it holds, before taking it over.
      .publish(subj.holdsAll)
      // The start lanes' backlogs, which it reports and reads: a sub-workflow starts in its owner's less busy lane.
      .publish(subj.laneBacklog)
      .subscribe(subj.laneBacklog)
      .respond()
      // Events; timers (waits, retries, approval timeouts); sub-workflows started, cancelled, and their parents woken.
      .publish(
        `${ns}.evt.>`,
        `${ns}.timer.>`,
        `${ns}.timersched.>`,
        subj.execStartAll,
        `${cmd}.exec.cancel.*`,
        subj.execResumeAll,
        dropped,
      )
      .build()
  );
}

function approvalsPermissions({ ns, subj, streams, cmd, dropped }: Names): Permissions {
  return (
    new Grants(ns)
      .base("approvals")
      .records("approvals", "write")
      .workQueues(
        streams.cmd,
        approvalQueues(ns).map((q) => [q.durable, q.filter]),
      )
      // Executions woken, or failed when a command about their approval is given up.
      .publish(subj.execResumeAll, `${cmd}.exec.fail.*`, dropped)
      .build()
  );
}

function schedulerPermissions({ ns, subj, streams, consumers, cmd, dropped }: Names): Permissions {
  return (
    new Grants(ns)
      .base("scheduler")
      .records("workflows", "read")
      .records("users", "read")
      .records("executions", "write")
      // An execution's record names its definition by reference, which the stranded sweep keeps stored while the
      // execution waits.
      .kv(`${ns}_definitions`, "write")
      .records("schedules", "write")
      .records("chain_runs", "write")
      // Each owner's triggered starts a minute, counted beside the API keys' requests (start-budget.ts).
      .kv(`${ns}_ratelimits`, "write")
      // Retention removes old executions with their approvals, artifacts and events.
      .records("approvals", "write")
      .records("artifacts", "write")
      .objects(`${ns}_artifacts`, "write")
      .publish(`$JS.API.STREAM.PURGE.${streams.evt}`)
      .workQueues(
        streams.timer,
        timerQueues(ns).map((q) => [q.durable, q.filter]),
      )
      .workQueues(
        streams.cmd,
        triggerQueues(ns).map((q) => [q.durable, q.filter]),
      )
      // Whether an executor still runs an execution whose command is gone, before it is handed on (stranded-executions.ts).
      .publish(subj.holdsAll)
      // The execution ends the scheduler follows for chained triggers, one durable consumer each.
      .durables(streams.evt, END_EVENT_TYPES.map(consumers.chainEnds))
      // Timers it arms (ticks, chains), what due timers fire (whoever armed them: debug pauses' idle timers too, and
      // resumes, approvals' expiries and its own commands on the subjects of the version that armed them), the ends it
      // hands on to its trigger lanes, and the starts of schedules and chains.
      .publish(
        `${ns}.timer.>`,
        `${ns}.timersched.>`,
        subj.execResumeAll,
        `${cmd}.exec.resume.*`,
        `${cmd}.exec.debug.*`,
        `${cmd}.approvals.*.expire.*`,
        `${cmd}.approval.expire.*`,
        `${cmd}.triggers.*.*.*`,
        `${cmd}.sched.>`,
        subj.execStartAll,
        dropped,
      )
      .build()
  );
}
