import { z } from "zod";
import { parseIpRange } from "../api/webhooks-ip";
import { ConfigError } from "../errors/wf-error";
import { EgressAllowList } from "./egress-allow";
import { jsonOrFile, LlmProviderConfig, PriceTable } from "./llm";

const token = z.string().regex(/^[A-Za-z0-9_-]+$/, "must be letters, digits, '_' or '-' (it is a NATS subject token)");
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const flag = z.enum(["0", "1"]).transform((v) => v === "1");
// proxy-addr's (Fastify's trustProxy) named ranges, beside addresses and CIDR ranges.
const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);
const proxyList = z
  .string()
  .transform((v) =>
    v
      .split(",")
      .map((e) => e.trim())
      .filter(Boolean),
  )
  .refine(
    (list) => list.every((e) => PROXY_NAMES.has(e) || parseIpRange(e) !== null),
    "must be a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal",
  )
  .optional();

/**
 * Every knob the service reads, with its default. docs/configuration.md's table is generated
 * from it (`npm run docs`; a test keeps them in step).
 */
export const ENV_SCHEMA = {
  PORT: { schema: int(0, 65535), default: "3000", doc: "HTTP port of the edge." },
  HOST: {
    schema: z.string().min(1),
    default: "127.0.0.1",
    doc: "Address the edge listens on (use 0.0.0.0 to accept remote clients).",
  },
  WF_EDGE_PROCESSES: {
    schema: int(1, 64),
    default: "1",
    doc: "Edge processes `npm run start:edge` runs on the one port (node cluster). The edge is CPU-bound under load: about one per core, less what nats-server needs.",
  },
  WF_OPS_HOST: {
    schema: z.string().min(1),
    default: "127.0.0.1",
    doc: "Address of the ops listener every service process opens (`/healthz`, `/readyz`, `/metrics`: docs/metrics.md). Use 0.0.0.0 for probes and scrapes from other hosts (a kubelet, Prometheus); it needs no key, so keep it off public networks.",
  },
  WF_OPS_PORT: {
    schema: z.union([z.literal("off").transform(() => null), int(0, 65535)]),
    default: "9464",
    doc: "Port of the ops listener; `0`: a free one (logged with `ops listening`), `off`: no listener. Processes on one host each need their own port: one that is taken stops start-up.",
  },
  NATS_URL: {
    schema: z
      .string()
      .refine(
        (v) => v.split(",").every((u) => URL.canParse(u.trim())),
        "must be a URL, or a comma-separated list of a cluster's URLs",
      )
      .optional(),
    default: undefined,
    doc: "NATS server URL, or a cluster's as a comma-separated list (`nats://n1:4222,nats://n2:4222,nats://n3:4222`), with credentials in it (`nats://user:password@host:4222`, `nats://token@host:4222`) or in NATS_USER and NATS_PASSWORD or NATS_TOKEN. Unset: the nats-server of WF_DATA_DIR, started as a child with credentials when none runs.",
  },
  NATS_USER: {
    schema: z.string().min(1).optional(),
    default: undefined,
    doc: "User name on the server NATS_URL names (with NATS_PASSWORD): each service its own in production (`deploy/nats/auth.conf`).",
  },
  NATS_PASSWORD: {
    schema: z.string().min(1).optional(),
    default: undefined,
    sensitive: true,
    doc: "Password of NATS_USER.",
  },
  NATS_TOKEN: {
    schema: z.string().min(1).optional(),
    default: undefined,
    sensitive: true,
    doc: "Token for the server NATS_URL names, instead of a user and password.",
  },
  NATS_SERVER_BIN: {
    schema: z.string().min(1),
    default: "nats-server",
    doc: "The nats-server binary (a name on PATH or a path) that `npm start` starts when it needs one, and that tests and `npm run bench` start. `scripts/fetch-nats-server` fetches Debian's newest without installing it.",
  },
  MONGODB_URI: {
    schema: z.string().url().optional(),
    default: undefined,
    doc: "When set, records are kept in MongoDB instead of JetStream KV.",
  },
  MONGODB_DATABASE: { schema: z.string().min(1), default: "wf", doc: "MongoDB database name." },
  WF_NAMESPACE: {
    schema: token,
    default: "wf",
    doc: "Prefix of every subject, stream, bucket: several installations can share one NATS.",
  },
  WF_DATA_DIR: {
    schema: z.string().min(1),
    default: ".data",
    doc: "Local data, files 0600: `keys.json` (the server keys no variable sets), and without NATS_URL the nats-server child's store (`nats/`), credentials, configuration and URL.",
  },
  WF_EXEC_CONCURRENCY: {
    schema: int(1, 10_000),
    default: "64",
    doc:
      "Executions one executor process runs at once (parked ones do not count). Triggers and executions write to the same NATS server, which stores writes in the order they come: " +
      "when both are busy, fewer executions at once shorten the wait of a trigger's writes behind theirs, and so the webhook's tail, at the cost of executions per second (docs/operations.md). Where the operator turns the yield on (WF_EXEC_YIELD_CONCURRENCY), an executor takes fewer while the work queue grows fast. " +
      "An owner whose start or resume lane holds nothing is never kept waiting behind others' executions: its lane takes one past this bound, so at most 33 more (16 start lanes, 16 resume lanes and the cancels' and debugger commands' queue) when every slot is busy.",
  },
  WF_EXEC_YIELD_CONCURRENCY: {
    schema: int(0, 10_000),
    default: "0",
    doc:
      "Triggers first, off by default (0): under a flood the yield kept under half the executors' drain rate on every machine measured, where not yielding kept half or more at a like webhook p99 (docs/operations.md). Set (4, say): while the executors' work queue grows by WF_EXEC_YIELD_GROWTH commands a second or more and an edge answers triggers slowly (WF_EXEC_YIELD_EDGE_P99_MS), triggers arrive faster than executions can be run anyway, and an executor takes " +
      "this many executions at once (more as WF_EXEC_YIELD_DRAIN_SHARE asks) from the start and resume lanes with more than a few commands waiting (an even share of WF_EXEC_CONCURRENCY over 16 lanes): the flooding owners', not a quiet owner's, " +
      "so that their writes do not hold up the triggers' on the shared NATS server; it takes WF_EXEC_CONCURRENCY again once the triggers stop or the queue stops growing. " +
      "0, or a value not below WF_EXEC_CONCURRENCY, never yields.",
  },
  WF_EXEC_YIELD_GROWTH: {
    schema: int(1, 10_000_000),
    default: "1000",
    doc:
      "The growth of the executors' work queue, in commands a second over half a second (sampled ten times a second), at which an executor yields (WF_EXEC_YIELD_CONCURRENCY) while triggers still arrive; " +
      "a sample in which commands arrive at under half this rate ends the yield (under 400 a second, too few come in a sample to tell: the yield then ends once the queue stops growing).",
  },
  WF_EXEC_YIELD_DRAIN_SHARE: {
    schema: z.coerce.number().min(0).max(1),
    default: "0.5",
    doc:
      "While it yields, the share of its drain rate an executor keeps settling: it learns how many commands a second it settles at WF_EXEC_CONCURRENCY with a backlog waiting, and, yielding, takes more than " +
      "WF_EXEC_YIELD_CONCURRENCY at once (up to WF_EXEC_CONCURRENCY) while it settles less than this share of that, so that executions keep completing while triggers flood in. 0 keeps WF_EXEC_YIELD_CONCURRENCY all through a yield.",
  },
  WF_EXEC_YIELD_EDGE_P99_MS: {
    schema: int(0, 600_000),
    default: "50",
    doc:
      "The executors yield to triggers only while an edge answers them this slowly: a yield starts (WF_EXEC_YIELD_GROWTH) only while some edge's 99th percentile of webhook and API starts over the last half second " +
      "is this many milliseconds or more (each edge reports it on <ns>.edge.latency twice a second while it answers triggers), and a yield is over in the first half second in which every edge answers in under half of it. Where the edges have the CPU to spare (more cores, or another machine), executions then run at full speed through a flood. 0 yields whatever the edges' latency.",
  },
  WF_EXEC_YIELD_MAX_MS: {
    schema: int(0, 86_400_000),
    default: "30000",
    doc:
      "The longest yield in a row: after it an executor takes WF_EXEC_CONCURRENCY at once all the same, until its backlog is drained, so that a sustained overload does not keep executions slow " +
      "while their backlog grows without end.",
  },
  WF_EXECUTOR_NICE: {
    schema: int(0, 19),
    default: "10",
    doc:
      "The nice value of the all-in-one service's executor thread, which its code steps' processes inherit (Linux; without effect under WF_EXECUTOR_IDLE, unless chrt is missing). Above 0, the edge and the NATS server come first " +
      "when the CPU is short: triggers keep being answered at once and executions queue in JetStream meanwhile. 0 runs the executor as the rest of the process.",
  },
  WF_EXECUTOR_IDLE: {
    schema: flag,
    default: "0",
    doc:
      "1 runs the all-in-one service's executor thread, and the code runners it starts, under Linux's SCHED_IDLE policy instead of WF_EXECUTOR_NICE and WF_EXECUTOR_BATCH: " +
      "they run only on CPU time nothing else on the host wants and give it up the moment anything else needs it. For a host that serves the service alone and takes bursts of " +
      "triggers beyond what the executor can run: on 2 cores at 5,000 triggers/s with the executor saturated, it took the webhook p50 from 5.5–30 ms to 2.6–3.1 ms and its p99 " +
      "from 35–400 ms to 20–47 ms, with no loss at 1,000/s. Anything else that keeps the CPU busy starves it: with two busy processes on those 2 cores, the service did not " +
      "get ready in 60 s. Needs util-linux's `chrt`.",
  },
  WF_EXECUTOR_BATCH: {
    schema: flag,
    default: "1",
    doc:
      "1 runs the executor (an executor process's main thread, or the all-in-one service's executor thread when WF_EXECUTOR_IDLE is 0) and the code runners it starts under Linux's SCHED_BATCH policy: " +
      "an executor and a runner woken by each other's messages wait for their turn instead of taking the CPU at once, which made end-to-end code workflows about 14% faster on 2 cores. " +
      "Needs util-linux's `chrt`; without it the executor warns and runs on. 0 keeps the default policy.",
  },
  WF_EXEC_LEASE_MS: {
    schema: int(1_000, 600_000),
    default: "30000",
    doc: "In-flight lease (JetStream AckWait) of a running execution; a crashed executor's work is taken over after it. Above 60 s, the events a crashed executor wrote but had not published when it died are not sent at the takeover (docs/architecture.md, Snapshots first, then events).",
  },
  WF_EXEC_MAX_DELIVER: {
    schema: int(2, 1_000),
    default: "20",
    doc: "Failed attempts at one command, in one process, before it is given up and recorded as poison (deliveries that found the work busy, and transient failures, do not count).",
  },
  WF_STOP_GRACE_MS: {
    schema: int(0, 600_000),
    default: "20000",
    doc: "How long a stopping executor (SIGTERM) finishes the work it holds: it runs each execution to the end of its current step, then hands it to another replica; one still in a step after this is left to its lease (WF_EXEC_LEASE_MS). Keep it below the orchestrator's grace period (Kubernetes: 30 s).",
  },
  WF_HOLD_WAIT_MS: {
    schema: int(0, 600_000),
    default: "5000",
    doc: "Waits and retry backoffs shorter than this stay in memory (still backed by a durable timer); longer ones park the execution.",
  },
  WF_EXECUTION_RETENTION: {
    schema: z
      .string()
      .regex(
        /^(off|\d+[smhd])$/,
        "must be a number of seconds, minutes, hours or days (`90s`, `15m`, `12h`, `30d`), or `off`",
      )
      .transform((v) =>
        v === "off"
          ? null
          : Number(v.slice(0, -1)) *
            { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[v.at(-1) as "s" | "m" | "h" | "d"],
      ),
    default: "30d",
    doc:
      "How long finished executions (COMPLETED, FAILED, CANCELLED, INTERRUPTED) are kept, counted from their start request: older ones are removed in the background by the scheduler, with their list entries, approvals, artifact files and events. `off` keeps them for good. Unfinished executions are never removed. " +
      "The workflow definitions start commands and executions name (`<ns>_definitions`) expire this long and three days more after they were last written; one still named is written again daily (docs/architecture.md#definitions-by-reference).",
  },
  WF_AUDIT_PER_IP_PER_MINUTE: {
    schema: int(1, 1_000_000),
    default: "20",
    doc:
      "Refused requests (401, 403) an edge process records one by one per minute from one client address, whatever the reason; past it, and past WF_AUDIT_PER_MINUTE, they are counted, and each minute's counts are written as summary records (`repeats`). " +
      "Every record is three messages, about 650 bytes kept 90 days: without a bound, any client without a key could fill the NATS server's disk.",
  },
  WF_AUDIT_PER_MINUTE: {
    schema: int(1, 10_000_000),
    default: "600",
    doc: "Refused requests an edge process records one by one per minute, from all clients together (see WF_AUDIT_PER_IP_PER_MINUTE); at most 100 summaries per minute come on top, plus one per reason for the rest.",
  },
  WF_LIST_VIEW_AT_START: {
    schema: flag,
    default: "0",
    doc:
      "0 builds an edge's in-memory views of the execution lists and of the approval lists on the first list request of each, which waits for it (0.2 s at 10,000 executions, about 10 s at a million; 1.2 s at 100,000 approvals), and keeps them from then on; 1 builds them as soon as the edge serves. " +
      "The view receives every change of every execution's list entry: on 2 vCPU it cost an edge taking in webhooks 28% more CPU per trigger and nats-server 34% more (docs/operations.md). " +
      "1 suits an edge that serves the console or list clients after a restart; 0 spares edge processes that only take webhooks and starts. " +
      "A scheduler in the same process (the all-in-one service) builds the view all the same for its first retention and repair pass, one WF_RETENTION_SWEEP_MS after start.",
  },
  WF_RETENTION_SWEEP_MS: {
    schema: int(1_000, 86_400_000),
    default: "60000",
    doc: "How often each scheduler replica removes the executions WF_EXECUTION_RETENTION lets go (each pass removes all that are due, in batches), puts right what failed starts and cut-short writes left of unfinished executions older than two minutes (list entries counted in totals but shown on no page), and brings back executions left waiting for two minutes by a lost command or timer (up to 1,000 open executions of each status a pass, going on where the last stopped: docs/architecture.md#restarts).",
  },
  WF_EVENTS_MAX_AGE_H: {
    schema: int(1, 24 * 365),
    default: "168",
    doc: "How long execution events are kept on the EVT stream.",
  },
  WF_REPLICAS: {
    schema: z.union([z.literal("auto"), z.enum(["1", "3", "5"]).transform(Number)]),
    default: "auto",
    doc: "Copies JetStream keeps of every stream and bucket the service creates: 1, 3 or 5. `auto`: 3 when the server NATS_URL names is part of a cluster, 1 otherwise. Set on creation and reconciled at every start, so raising it on a running installation replicates what exists.",
  },
  WF_PLACEMENT_TAGS: {
    schema: z
      .string()
      .transform((v) =>
        v
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean),
      )
      .optional(),
    default: undefined,
    doc: "Comma-separated server tags (`server_tags` in nats-server's configuration) the streams and buckets are placed on, e.g. `ssd,region:eu`. Unset: any server of the cluster.",
  },
  WF_STORE_COMPRESSION: {
    schema: z.enum(["s2", "none"]),
    default: "s2",
    doc: "How the streams and buckets that keep data (the EVT and AUDIT streams, the KV store's buckets, the artifacts' object store) keep it on disk. `s2`: nats-server compresses each block once it is full (docs/operations.md#disk: a block of events shrinks about sevenfold); `none`: as written. Needs nats-server 2.10 or newer; an older server keeps every block as written and the service says so once at start. Set on creation and reconciled at every start; on an existing stream the server applies a change to the blocks it starts after its next restart.",
  },
  WF_SCHEDULE_SCAN_MS: {
    schema: int(100, 3_600_000),
    default: "10000",
    doc: "How often each scheduler replica scans the workflows for schedules to arm: a new or edited schedule, or an owner's upgrade to Pro, takes effect within this time.",
  },
  WF_SANDBOX_SOCKET: {
    schema: z.string().min(1).optional(),
    default: undefined,
    doc: "Unix socket of a standalone sandbox runner (`services/executor/src/sandbox-main.ts`); unset: the executor forks its own runners.",
  },
  WF_SANDBOX_BUNDLE_DIR: {
    schema: z.string().min(1).optional(),
    default: undefined,
    doc: "For a service run from its TypeScript sources through tsx (the tests' in-process runtime; `npm start` runs the bundles): a directory of `npm run build`'s bundles whose `sandbox-process.js` its forked runners run, rather than loading their sources through tsx (about 0.5 s of CPU a runner, and as much for its JavaScript host). Its files run as the service's user: a directory only that user can write, as `dist/` is. The test suite points it at its own build. A bundled service always forks the runner beside it.",
  },
  WF_SANDBOX_POOL: {
    schema: int(1, 64),
    default: "2",
    doc: "Sandbox runner processes an executor forks when WF_SANDBOX_SOCKET is unset; an execution's code steps go to one of them, picked by its id.",
  },
  WF_SANDBOX_START: {
    schema: z.enum(["eager", "first-use"]),
    default: "eager",
    doc: "When an executor starts its sandbox runners (or connects to a standalone one, WF_SANDBOX_SOCKET). `eager`: at start, which waits for them and logs their isolation, so a host that cannot sandbox steps says so before any step; `first-use`: with the first code step or stdio MCP server, which waits for them (about a second of CPU on a 2-core machine), for executors that seldom run code and should start fast and light. The test suite's in-process executors start at first use.",
  },
  WF_SANDBOX_UIDS: {
    schema: z
      .string()
      .regex(/^\d+:\d+$/, "must be <first uid>:<count>, e.g. 1879048192:1048576")
      .transform((v) => {
        const [first, count] = v.split(":").map(Number) as [number, number];
        return { first, count };
      })
      .refine(
        (r) => r.first > 0 && r.count >= 1025 && r.first + r.count <= 0xffffffff,
        "must be a range above uid 0, of at least 1025 uids, below 2^32 - 1",
      ),
    default: "1879048192:1048576",
    doc: "Host uids the code sandbox runs steps as, `<first>:<count>`: each sandbox runner on the host claims a block of 1025 (its zygotes' uid, its JavaScript host's, and one per step running at once or made ahead of its step), so no two running steps share a uid and none is the host's root. Keep it clear of real accounts; in a container, inside the container's uid map.",
  },
  WF_SANDBOX_STEPS: {
    schema: int(1, 1023),
    default: "32",
    doc: "Process steps (every language but JavaScript and TypeScript) one sandbox runner runs at once. Owners take turns at them, each holding at most its plan's share (free 1/4, pro 1/2, team and enterprise 3/4) but never fewer than 4 per core, so that one owner's fan-out waits for its own share (docs/sandbox.md#what-tenants-share).",
  },
  WF_SANDBOX_STEPS_MEMORY_MB: {
    schema: int(0, 16_777_216),
    default: "0",
    doc: "Memory the process steps of one sandbox runner hold together (a memory cgroup above theirs), beside each step's own limit: past it, the kernel stops the biggest step, which fails saying so. 0: a quarter of the host's memory.",
  },
  WF_SANDBOX_READ_ONLY: {
    schema: z
      .string()
      .transform((v) =>
        v
          .split(",")
          .map((p) => p.trim())
          .filter(Boolean),
      )
      .refine(
        (paths) => paths.every((p) => p.startsWith("/") && !p.split("/").includes("..")),
        "must be a comma-separated list of absolute paths",
      )
      .optional(),
    default: undefined,
    doc: "Comma-separated host paths that code steps and stdio MCP servers may read, besides /usr, the interpreters' own directories and a minimal /etc (e.g. `/opt/tools,/srv/models`). Never list the service's data, the NATS store or the repository.",
  },
  WF_SANDBOX_UNSAFE: {
    schema: flag,
    default: "0",
    doc: "`1`: where the sandbox cannot start (no user namespaces), run code steps other than JavaScript and TypeScript anyway, with only a private directory, a clean environment, resource limits and the seccomp filter: they then see the host's files and network. `0` (the default) fails such steps, saying why.",
  },
  WF_CODE_TMP_DIR: {
    schema: z.string().optional(),
    default: undefined,
    doc: "Where code steps get their private temp dirs (default: the OS temp dir), under a root per executor that the next one on the host removes if its owner was killed.",
  },
  WF_REDELIVER_ONCE: {
    schema: flag,
    default: "0",
    doc: "Test mode: every execution command is handled twice (acknowledged on its second delivery), to prove the handlers idempotent. Never in production.",
  },
  WF_URL_SIGNING_KEY: {
    schema: z.string().min(32, "must have at least 32 characters").optional(),
    default: undefined,
    sensitive: true,
    doc: "Secret (32+ characters) that signs artifact download URLs; the same on every edge. Unset: the one in `<WF_DATA_DIR>/keys.json`, made at first start.",
  },
  WF_DOWNLOAD_URL_TTL_S: {
    schema: int(10, 7 * 24 * 3600),
    default: "900",
    doc: "Lifetime of a signed artifact download URL, in seconds.",
  },
  WF_TRUSTED_PROXIES: {
    schema: proxyList,
    default: undefined,
    doc: "Comma-separated addresses or CIDR ranges (or `loopback`, `linklocal`, `uniquelocal`) of reverse proxies whose `X-Forwarded-For` is believed: the client is the nearest address not in the list. Unset: `X-Forwarded-For` is ignored and the peer address counts (webhook allow-lists, audit records).",
  },
  WF_WEBHOOK_SIGNATURE_FAILURES_PER_MINUTE: {
    schema: int(1, 1_000_000),
    default: "20",
    doc:
      "Wrong signatures one edge process takes for one HMAC webhook from one client address (an IPv6 address counts by its /64) within a minute of the first; past it, that address's triggers of that webhook are refused with 429 `WEBHOOK_THROTTLED` before their bodies are read, until the minute ends. " +
      "Only signatures checked over a body count (a missing or malformed one is refused without reading it), replays too; a sender with the secret never fails, however fast it sends (docs/webhooks.md#unauthenticated-floods).",
  },
  WF_WEBHOOK_SECRET_KEY: {
    schema: z.string().min(32, "must have at least 32 characters").optional(),
    default: undefined,
    sensitive: true,
    doc: "Secret (32+ characters) that encrypts webhook HMAC secrets at rest (AES-256-GCM); the same on every edge. Unset: the one in `<WF_DATA_DIR>/keys.json`, made at first start.",
  },
  WF_CONSOLE_DIR: {
    schema: z.string().min(1).optional(),
    default: undefined,
    doc: "Folder of the built console app that the edge serves at `/console/`. Unset: the console beside the service's bundle (`dist/console`, copied from the console's build, which `npm start` makes when it is missing or older than its sources), or `services/console/dist` for a service run from its sources.",
  },
  WF_SESSION_TTL_S: {
    schema: int(60, 30 * 24 * 3600),
    default: "43200",
    doc: "Lifetime of a console session, in seconds, from login.",
  },
  WF_SESSION_COOKIE_SECURE: {
    schema: flag,
    default: "1",
    doc: "`1`: the console session cookie is `Secure` (sent over HTTPS and to localhost only). `0` only for plain-HTTP set-ups.",
  },
  WF_LOGIN_FAILURES_PER_ACCOUNT: {
    schema: int(1, 1_000_000),
    default: "10",
    doc:
      "Failed console logins one edge process takes for one email from one client address (an IPv6 address counts by its /64) within WF_LOGIN_THROTTLE_WINDOW_S; past it, that email from that address is refused with 429 `LOGIN_THROTTLED` without checking the password, until the window ends. " +
      "Keyed by the address too, so that guessing from elsewhere cannot lock the account's owner out; a successful login clears the count. Attempts still being checked count as failures.",
  },
  WF_LOGIN_FAILURES_PER_ADDRESS: {
    schema: int(1, 1_000_000),
    default: "50",
    doc: "Failed console logins one edge process takes from one client address (an IPv6 address by its /64), for any emails, within WF_LOGIN_THROTTLE_WINDOW_S; past it, every login from that address is refused with 429 `LOGIN_THROTTLED` until the window ends.",
  },
  WF_LOGIN_THROTTLE_WINDOW_S: {
    schema: int(1, 86_400),
    default: "900",
    doc: "The console login throttle's window, in seconds: a budget's count starts at its first attempt and is dropped this long after (docs/webhooks.md, Login throttling).",
  },
  WF_PASSWORD_HASH_CONCURRENCY: {
    schema: int(1, 64),
    default: "2",
    doc:
      "Password checks (scrypt: 128 MB and about half a second of a core each) one edge process runs at once, for console logins and password changes. They run on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which the process's file and DNS work shares: " +
      "at 2, a flood of logins leaves it 2 threads. One email from one address runs on all but one at most, so that someone else's login need not wait behind a flood (at 1, it waits for the check running). " +
      "On a host of few cores, fewer leave more CPU to the API.",
  },
  WF_PASSWORD_HASH_QUEUE: {
    schema: int(0, 10_000),
    default: "16",
    doc:
      "Password checks one edge process keeps waiting for WF_PASSWORD_HASH_CONCURRENCY; past it, a login or password change is refused at once with 503 `PASSWORD_CHECKS_BUSY`. " +
      "Keep it at WF_LOGIN_FAILURES_PER_ACCOUNT or more: one email from one address runs one check at a time, and those its budget admits should wait, not be refused. " +
      "Waiting checks are taken first from the client addresses, then the emails, that had the fewest started, so that one client's flood does not make another wait behind it (docs/webhooks.md, Login throttling).",
  },
  WF_CONSOLE_EVENT_STREAMS: {
    schema: int(1, 10_000),
    default: "16",
    doc: "Console event streams (an execution's or all of one's executions' events, Server-Sent Events) one user may have open at once on one edge process: each holds a consumer on the NATS server every tenant shares. Past it a stream is refused with 429 `EVENT_STREAMS_LIMIT`; closing one frees its place.",
  },
  WF_ARTIFACT_DOWNLOADS: {
    schema: int(1, 10_000),
    default: "16",
    doc: "Artifact downloads of one owner's files one edge process serves at once, whoever holds their signed URLs: each holds a connection and a few 128 KiB chunks of its file (about 0.5 MiB) in the edge's memory, read from the store as its client takes them. Past it a download is refused with 429 `DOWNLOADS_LIMIT`; one that ends frees its place.",
  },
  WF_LLM_PROVIDERS: {
    schema: jsonOrFile(z.array(LlmProviderConfig)).optional(),
    default: undefined,
    sensitive: true,
    doc: "The LLM providers `llm` and `agent` steps call: a JSON array, inline or the path of a file holding it (see LLM steps). Unset: such steps fail saying no provider serves their model.",
  },
  WF_LLM_PRICES: {
    schema: jsonOrFile(PriceTable).optional(),
    default: undefined,
    doc: 'Price table turning tokens into cost: JSON `{"<model or pattern>": {"input": USD, "output": USD}}` per million tokens, inline or a file path. Unpriced models cost 0.',
  },
  WF_AI_CALLS: {
    schema: int(1, 100_000),
    default: "64",
    doc:
      "Model calls (the requests of llm and agent steps, a call's retries included) one executor has in flight at once, on the providers' keys every owner's steps share. " +
      "Owners take turns at free places, each with at most its plan's share (free 4, pro 16, team and enterprise 32, never more than this); a call waits for its place (its step's `timeout` and a cancel still end it), and its `step_usage` event says how long in `waitedMs` (docs/ai-steps.md#how-many-calls-at-once).",
  },
  WF_SECRETS_KEY: {
    schema: z.string().min(32, "must have at least 32 characters").optional(),
    default: undefined,
    sensitive: true,
    doc: "Secret (32+ characters) that encrypts the owners' secrets (`wf admin secret set`, the console) at rest (AES-256-GCM); the same on every executor, every edge (the console sets secrets) and the wf CLI. Unset: the one in `<WF_DATA_DIR>/keys.json`, made at first start.",
  },
  WF_MCP_CONNECTIONS: {
    schema: int(1, 10_000),
    default: "32",
    doc: "The most MCP connections (an agent's servers: one per distinct URL and rendered headers, or command, in an execution) any owner may have open at once on one executor, all its executions together. Each owner has its plan's share (free 4, pro 16, team and enterprise 32), never more than this. Past its share, a new connection first closes the owner's least recently used idle one (which its next use opens again), never another owner's, and waits while all of the owner's are in use (docs/ai-steps.md#how-many-calls-at-once).",
  },
  WF_MCP_STDIO: {
    schema: flag,
    default: "1",
    doc: "`1`: agents may attach stdio MCP servers (`command:`) whose command WF_MCP_STDIO_ALLOW lists, run in the code steps' sandbox. `0` refuses them all (only `url:` servers).",
  },
  WF_MCP_STDIO_ALLOW: {
    schema: z
      .string()
      .transform((v) =>
        v
          .split(",")
          .map((c) => c.trim())
          .filter(Boolean),
      )
      .optional(),
    default: undefined,
    doc: "Comma-separated commands stdio MCP servers may be started with: names looked up on the sandbox's PATH (`npx`, `uvx`) or absolute paths. Unset: none (a workflow's `command:` is refused, naming this variable).",
  },
  WF_EGRESS_ALLOW: {
    schema: EgressAllowList.optional(),
    default: undefined,
    doc: "Comma-separated addresses, CIDR ranges and host names or `*.` patterns, each with an optional `:port` (`10.1.0.0/16,*.internal.example.com,db.local:5432`), that code steps with network access and MCP `url:` servers may reach although they are refused by default: loopback, private, link-local (the cloud metadata address), CGNAT, multicast, reserved, and this host's own addresses. `0.0.0.0/0,::/0` lifts every refusal.",
  },
  LOG_LEVEL: { schema: z.enum(["debug", "info", "warn", "error", "silent"]), default: "info", doc: "Log level." },
} as const;

type Spec = typeof ENV_SCHEMA;
export type Config = { [K in keyof Spec]: z.infer<Spec[K]["schema"]> };

/** Reads and checks the environment; a bad value stops start-up with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, spec] of Object.entries(ENV_SCHEMA)) {
    const raw = env[name] === "" ? undefined : (env[name] ?? spec.default);
    const parsed = (spec.schema as z.ZodType).safeParse(raw);
    if (parsed.success) out[name] = parsed.data;
    else {
      // A key must not reach a log because its variable is malformed.
      const shown =
        "sensitive" in spec && spec.sensitive && env[name] !== undefined ? "(hidden)" : JSON.stringify(env[name]);
      problems.push(`${name}=${shown}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    }
  }
  if (problems.length) throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  return out as Config;
}
