import { ConfigError } from "../errors/wf-error";

/** What a client shows nats-server: a user and password, a token, or nothing. */
export type NatsAuth = { user: string; pass: string } | { token: string } | Record<string, never>;

/** A nats-server to connect to (its URL never carries the credentials) and how to log in. */
export interface NatsTarget {
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
 * default, which keeps its own credentials in WF_DATA_DIR.
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
  const url = new URL(env.NATS_URL);
  const inUrl = url.username !== "" || url.password !== "";
  if (inUrl && given.length > 0) {
    throw new ConfigError("NATS_URL carries credentials and NATS_USER, NATS_PASSWORD or NATS_TOKEN is set too: give them one way only");
  }
  if (inUrl) {
    const auth =
      url.password === "" ? { token: decodeURIComponent(url.username) } : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) };
    url.username = "";
    url.password = "";
    return { url: url.toString(), auth };
  }
  if (token !== undefined) {
    if (given.length > 1) throw new ConfigError("NATS_TOKEN and NATS_USER/NATS_PASSWORD are both set: a server takes one or the other");
    return { url: url.toString(), auth: { token } };
  }
  if (user !== undefined || pass !== undefined) {
    if (user === undefined || pass === undefined) throw new ConfigError("NATS_USER and NATS_PASSWORD go together: one is set without the other");
    return { url: url.toString(), auth: { user, pass } };
  }
  return { url: url.toString(), auth: {} };
}
