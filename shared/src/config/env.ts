import { z } from "zod";
import { parseIpRange } from "../api/webhooks-ip";
import { ConfigError } from "../errors/wf-error";
import { jsonOrFile, LlmProviderConfig, PriceTable } from "./llm";

const token = z.string().regex(/^[A-Za-z0-9_-]+$/, "must be letters, digits, '_' or '-' (it is a NATS subject token)");
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const flag = z.enum(["0", "1"]).transform((v) => v === "1");
// proxy-addr's (Fastify's trustProxy) named ranges, beside addresses and CIDR ranges.
const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);
const proxyList = z
  .string()
  .transform((v) => v.split(",").map((e) => e.trim()).filter(Boolean))
  .refine((list) => list.every((e) => PROXY_NAMES.has(e) || parseIpRange(e) !== null), "must be a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal")
  .optional();

/**
 * Every knob the service reads, with its default. The README's configuration table lists the
 * same names (a test keeps them in step).
 */
export const ENV_SCHEMA = {
  PORT: { schema: int(0, 65535), default: "3000", doc: "HTTP port of the edge." },
  HOST: { schema: z.string().min(1), default: "127.0.0.1", doc: "Address the edge listens on (use 0.0.0.0 to accept remote clients)." },
  WF_EDGE_PROCESSES: {
    schema: int(1, 64),
    default: "1",
    doc: "Edge processes `npm run start:edge` runs on the one port (node cluster). The edge is CPU-bound under load: about one per core, less what nats-server needs.",
  },
  NATS_URL: { schema: z.string().url().optional(), default: undefined, doc: "NATS server URL. Unset: use one answering on 127.0.0.1:4222, else start `nats-server` as a child." },
  NATS_SERVER_BIN: {
    schema: z.string().min(1),
    default: "nats-server",
    doc: "The nats-server binary (a name on PATH or a path) that `npm start` starts when it needs one, and that tests and `npm run bench` start. `scripts/fetch-nats-server` fetches Debian's newest without installing it.",
  },
  MONGODB_URI: { schema: z.string().url().optional(), default: undefined, doc: "When set, records are kept in MongoDB instead of JetStream KV." },
  MONGODB_DATABASE: { schema: z.string().min(1), default: "wf", doc: "MongoDB database name." },
  WF_NAMESPACE: { schema: token, default: "wf", doc: "Prefix of every subject, stream, bucket: several installations can share one NATS." },
  WF_DATA_DIR: { schema: z.string().min(1), default: ".data", doc: "Local data: the JetStream store of the nats-server child that `npm start` may start (`<dir>/nats`)." },
  WF_EXEC_CONCURRENCY: { schema: int(1, 10_000), default: "64", doc: "Executions one executor process runs at once (parked ones do not count)." },
  WF_EXEC_LEASE_MS: { schema: int(1_000, 600_000), default: "30000", doc: "In-flight lease (JetStream AckWait) of a running execution; a crashed executor's work is taken over after it." },
  WF_EXEC_MAX_DELIVER: { schema: int(2, 1_000), default: "20", doc: "Deliveries of one command before it is given up and recorded as poison." },
  WF_HOLD_WAIT_MS: { schema: int(0, 600_000), default: "5000", doc: "Waits and retry backoffs shorter than this stay in memory (still backed by a durable timer); longer ones park the execution." },
  WF_EVENTS_MAX_AGE_H: { schema: int(1, 24 * 365), default: "168", doc: "How long execution events are kept on the EVT stream." },
  WF_SCHEDULE_SCAN_MS: {
    schema: int(100, 3_600_000),
    default: "10000",
    doc: "How often each scheduler replica scans the workflows for schedules to arm: a new or edited schedule, or an owner's upgrade to Pro, takes effect within this time.",
  },
  WF_SANDBOX_SOCKET: { schema: z.string().min(1).optional(), default: undefined, doc: "Unix socket of a standalone sandbox runner (`services/executor/src/sandbox-main.ts`); unset: the executor forks its own runners." },
  WF_SANDBOX_POOL: { schema: int(1, 64), default: "2", doc: "Sandbox runner processes an executor forks when WF_SANDBOX_SOCKET is unset; code runs go to the least busy." },
  WF_CODE_TMP_DIR: { schema: z.string().optional(), default: undefined, doc: "Where code steps get their private temp dirs (default: the OS temp dir), under a root per executor that the next one on the host removes if its owner was killed." },
  WF_REDELIVER_ONCE: {
    schema: flag,
    default: "0",
    doc: "Test mode: every execution command is handled twice (acknowledged on its second delivery), to prove the handlers idempotent. Never in production.",
  },
  WF_URL_SIGNING_KEY: {
    schema: z.string().min(32, "must have at least 32 characters").optional(),
    default: undefined,
    sensitive: true,
    doc: "Secret that signs artifact download URLs. Unset: one is generated at first start and kept in the KV bucket `<ns>_edge`, shared by every edge replica.",
  },
  WF_DOWNLOAD_URL_TTL_S: { schema: int(10, 7 * 24 * 3600), default: "900", doc: "Lifetime of a signed artifact download URL, in seconds." },
  WF_TRUSTED_PROXIES: {
    schema: proxyList,
    default: undefined,
    doc: "Comma-separated addresses or CIDR ranges (or `loopback`, `linklocal`, `uniquelocal`) of reverse proxies whose `X-Forwarded-For` is believed: the client is the nearest address not in the list. Unset: `X-Forwarded-For` is ignored and the peer address counts (webhook allow-lists, audit records).",
  },
  WF_WEBHOOK_SECRET_KEY: {
    schema: z.string().min(32, "must have at least 32 characters").optional(),
    default: undefined,
    sensitive: true,
    doc: "Secret that encrypts webhook HMAC secrets at rest (AES-256-GCM). Unset: one is generated at first start and kept in the KV bucket `<ns>_edge`.",
  },
  WF_SESSION_TTL_S: { schema: int(60, 30 * 24 * 3600), default: "43200", doc: "Lifetime of a console session, in seconds, from login." },
  WF_SESSION_COOKIE_SECURE: {
    schema: flag,
    default: "1",
    doc: "`1`: the console session cookie is `Secure` (sent over HTTPS and to localhost only). `0` only for plain-HTTP set-ups.",
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
    doc: "Price table turning tokens into cost: JSON `{\"<model or pattern>\": {\"input\": USD, \"output\": USD}}` per million tokens, inline or a file path. Unpriced models cost 0.",
  },
  WF_SECRETS_KEY: {
    schema: z.string().min(32, "must have at least 32 characters").optional(),
    default: undefined,
    sensitive: true,
    doc: "Secret (32+ characters) that encrypts the owners' secrets (`wf admin secret set`) at rest (AES-256-GCM). Unset: one is generated at first start and kept in the KV bucket `<ns>_edge`; set it to keep the key apart from the data.",
  },
  WF_MCP_STDIO: {
    schema: flag,
    default: "1",
    doc: "`1`: agents may attach stdio MCP servers (`command:`), run as child processes of the executor with a minimal environment. `0` refuses them (only `url:` servers).",
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
      const shown = "sensitive" in spec && spec.sensitive && env[name] !== undefined ? "(hidden)" : JSON.stringify(env[name]);
      problems.push(`${name}=${shown}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    }
  }
  if (problems.length) throw new ConfigError(`invalid configuration:\n  ${problems.join("\n  ")}`);
  return out as Config;
}
