import type { Socket } from "node:net";
import type { Logger } from "@wf/shared/log";
import { checkDestination, type DnsLookup, type EgressVerdict } from "./check";
import { hostPort, type Destination } from "./destination";
import type { EgressPolicy, EgressRefusal, Narrowing } from "./policy";

export interface EgressLimits {
  /** Client connections one session holds at once; past it a connection is answered 503. */
  maxConnections: number;
  /** From a request to its connected destination, DNS included; past it the answer is 504. */
  connectTimeoutMs: number;
  /** A connection (a tunnel, or a client between requests) without a byte either way is closed. */
  idleTimeoutMs: number;
  /** Request line and headers. */
  maxHeaderBytes: number;
}

export const DEFAULT_LIMITS: EgressLimits = {
  maxConnections: 64,
  connectTimeoutMs: 10_000,
  idleTimeoutMs: 120_000,
  maxHeaderBytes: 16 * 1024,
};

/** What handling one request needs: the proxy's policy and limits, the session's lists and report. */
export interface RequestContext {
  policy: EgressPolicy;
  lookup: DnsLookup;
  limits: EgressLimits;
  log: Logger;
  narrowing: readonly Narrowing[];
  onRefused(refusal: EgressRefusal): void;
}

export type Outcome =
  | { kind: "go"; verdict: Extract<EgressVerdict, { kind: "allowed" }> }
  | { kind: "answer"; status: number; text: string };

/**
 * The verdict on a destination (or on a target that is none), as the answer a client gets when
 * it may not go: 403 for a refusal, reported to the session; 502 when the name does not resolve.
 * DNS may take what is left until `deadline` (a `performance.now()` time).
 */
export async function decide(
  ctx: RequestContext,
  target: Destination | EgressRefusal,
  deadline: number,
): Promise<Outcome> {
  const verdict: EgressVerdict =
    "rule" in target
      ? { kind: "refused", refusal: target }
      : await checkDestination(target, {
          policy: ctx.policy,
          narrowing: ctx.narrowing,
          lookup: ctx.lookup,
          timeoutMs: Math.max(0, deadline - performance.now()),
        });
  if (verdict.kind === "allowed") return { kind: "go", verdict };
  if (verdict.kind === "unresolved")
    return { kind: "answer", status: 502, text: `egress: cannot resolve ${verdict.dest.host}: ${verdict.error}` };
  try {
    ctx.onRefused(verdict.refusal);
  } catch (err) {
    ctx.log.warn("egress: the refusal callback threw", { err });
  }
  return { kind: "answer", status: 403, text: `egress refused: ${verdict.refusal.reason}` };
}

/** Calls `onTimeout` unless `socket` connects before `deadline` (a `performance.now()` time). */
export function connectDeadline(socket: Socket, deadline: number, onTimeout: () => void): void {
  const timer = setTimeout(onTimeout, Math.max(0, deadline - performance.now()));
  socket.once("connect", () => clearTimeout(timer));
  socket.once("close", () => clearTimeout(timer));
}

/** The error a destination that does not answer in time is destroyed with. */
export function timeoutError(): Error {
  return Object.assign(new Error("timed out"), { code: "ETIMEDOUT" });
}

/** The answer to a client whose destination failed before answering: 504 when it took too long, else 502. */
export function upstreamFailure(dest: Destination, err: unknown): { status: number; text: string } {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ETIMEDOUT") return { status: 504, text: `egress: ${hostPort(dest)} did not answer in time` };
  return { status: 502, text: `egress: cannot connect to ${hostPort(dest)}: ${code ?? (err as Error).message}` };
}
