import { lookup } from "node:dns/promises";
import type { LookupAddress, LookupOptions } from "node:dns";
import type { Destination } from "./destination";
import { formatIp, parseIp, type Ip } from "./ip";
import { judge, refuseByName, type EgressPolicy, type EgressRefusal, type Narrowing } from "./policy";

/** Resolves a name to all its addresses, as `dns.promises.lookup(name, { all: true })` does. */
export type DnsLookup = (name: string) => Promise<readonly { address: string; family: number }[]>;

export const systemLookup: DnsLookup = (name) => lookup(name, { all: true, order: "verbatim" });

export type EgressVerdict =
  | { kind: "allowed"; dest: Destination; addresses: readonly LookupAddress[] }
  | { kind: "refused"; refusal: EgressRefusal }
  | { kind: "unresolved"; dest: Destination; error: string };

export interface CheckOptions {
  policy: EgressPolicy;
  /** Each list must allow the destination (a step's allow lists); none: only the policy decides. */
  narrowing?: readonly Narrowing[];
  lookup?: DnsLookup;
  /** How long a DNS answer is waited for. */
  timeoutMs?: number;
}

const DNS_TIMEOUT_MS = 10_000;

/**
 * Resolves `dest` once and judges every address it resolved to: an allowed verdict carries the
 * very addresses that were checked, which are the only ones a connection may then use (see
 * `lookupOf`), so a name cannot resolve to something else between the check and the connect.
 */
export async function checkDestination(dest: Destination, opts: CheckOptions): Promise<EgressVerdict> {
  const narrowing = opts.narrowing ?? [];
  if (dest.kind === "ip") {
    const refusal = judge(opts.policy, narrowing, dest, [dest.ip]);
    return refusal
      ? { kind: "refused", refusal }
      : { kind: "allowed", dest, addresses: [{ address: dest.host, family: dest.ip.family }] };
  }
  const early = refuseByName(dest, narrowing);
  if (early) return { kind: "refused", refusal: early };
  let answers: readonly { address: string; family: number }[];
  try {
    answers = await withTimeout((opts.lookup ?? systemLookup)(dest.name), opts.timeoutMs ?? DNS_TIMEOUT_MS);
  } catch (err) {
    return { kind: "unresolved", dest, error: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  }
  const ips = answers.map((a) => parseIp(a.address)).filter((ip): ip is Ip => ip !== null);
  if (ips.length === 0) return { kind: "unresolved", dest, error: "no address" };
  const refusal = judge(opts.policy, narrowing, dest, ips);
  return refusal
    ? { kind: "refused", refusal }
    : { kind: "allowed", dest, addresses: ips.map((ip) => ({ address: formatIp(ip), family: ip.family })) };
}

/** The refusal of a host or port that is no destination at all. */
export function malformed(host: string, port: number, reason: string): EgressRefusal {
  return { host, port, reason, rule: "malformed" };
}

/**
 * A `lookup` for `net.connect` / `http.request` that answers with the checked addresses and
 * never asks DNS (with `autoSelectFamily`, connections try them in turn, IPv6 and IPv4 alike).
 */
export function lookupOf(addresses: readonly LookupAddress[]) {
  return (
    _host: string,
    options: LookupOptions,
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const fitting =
      options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const first = fitting[0];
    if (!first) callback(Object.assign(new Error("no checked address of that family"), { code: "ENOTFOUND" }), []);
    else if (options.all) callback(null, [...fitting]);
    else callback(null, first.address, first.family);
  };
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("DNS timeout"), { code: "ETIMEOUT" })), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
