import { ConfigError } from "../errors/wf-error";

/** What a client shows nats-server: a user and password, a token, or nothing. */
export type NatsAuth = { user: string; pass: string } | { token: string } | Record<string, never>;

/** A nats-server to connect to (its URL never carries the credentials) and how to log in. */
export interface NatsTarget {
  /** One server's URL, or a cluster's as a comma-separated list (the client tries each). */
  url: string;
  auth: NatsAuth;
}

export interface NatsCredentialEnv {
  NATS_URL?: string | undefined;
  NATS_USER?: string | undefined;
  NATS_PASSWORD?: string | undefined;
  NATS_TOKEN?: string | undefined;
}

/**
 * The server NATS_URL names, with its credentials: in the URL (`nats://user:password@host`,
 * `nats://token@host`), or in NATS_USER and NATS_PASSWORD, or in NATS_TOKEN. One form only: two
 * would leave in doubt which one the server gets. Undefined without NATS_URL: the embedded
 * default, which keeps its own credentials in WF_DATA_DIR. A cluster's members are listed with
 * commas; credentials in them must be the same in each.
 */
export function natsTargetFromEnv(env: NatsCredentialEnv): NatsTarget | undefined {
  const { NATS_USER: user, NATS_PASSWORD: pass, NATS_TOKEN: token } = env;
  const given = (["NATS_USER", "NATS_PASSWORD", "NATS_TOKEN"] as const).filter((name) => env[name] !== undefined);
  if (env.NATS_URL === undefined) {
    if (given.length > 0)
      throw new ConfigError(
        `${given.join(", ")} set without NATS_URL: they are the credentials of the server NATS_URL names (the embedded one keeps its own in WF_DATA_DIR)`,
      );
    return undefined;
  }
  const urls = env.NATS_URL.split(",").map((u) => new URL(u.trim()));
  const first = urls[0]!;
  if (urls.some((u) => u.username !== first.username || u.password !== first.password)) {
    throw new ConfigError(
      "NATS_URL lists servers with different credentials: give every server the same ones, or none and set NATS_USER and NATS_PASSWORD",
    );
  }
  const inUrl = first.username !== "" || first.password !== "";
  if (inUrl && given.length > 0) {
    throw new ConfigError(
      "NATS_URL carries credentials and NATS_USER, NATS_PASSWORD or NATS_TOKEN is set too: give them one way only",
    );
  }
  const auth =
    first.password === ""
      ? { token: decodeURIComponent(first.username) }
      : { user: decodeURIComponent(first.username), pass: decodeURIComponent(first.password) };
  for (const u of urls) {
    u.username = "";
    u.password = "";
  }
  const url = urls.map((u) => u.toString()).join(",");
  if (inUrl) return { url, auth };
  if (token !== undefined) {
    if (given.length > 1)
      throw new ConfigError("NATS_TOKEN and NATS_USER/NATS_PASSWORD are both set: a server takes one or the other");
    return { url, auth: { token } };
  }
  if (user !== undefined || pass !== undefined) {
    if (user === undefined || pass === undefined)
      throw new ConfigError("NATS_USER and NATS_PASSWORD go together: one is set without the other");
    return { url, auth: { user, pass } };
  }
  return { url, auth: {} };
}
