import { parseEgressAllowEntry, type EgressAllowEntry } from "@wf/shared/config";
import { hostPort, type Destination } from "./destination";
import { embeddedIpv4, formatIp, inRange, parseRange, sameIp, type Ip, type IpRange } from "./ip";
import { specialAddress } from "./special-addresses";

/** A connection the policy refused, as reported to the step and answered to the client. */
export interface EgressRefusal {
  /** As normalised: a lower-case name, or an address (IPv6 without brackets). */
  host: string;
  port: number;
  /**
   * One line, e.g. `10.0.0.5 is a private address (allow it with WF_EGRESS_ALLOW)`; for a name,
   * `db.corp resolves to a private address (…)`, never the address it resolved to.
   */
  reason: string;
  /** `operator`: the default refusals; `narrowing`: a step's allow list; `malformed`: not a host or port. */
  rule: "operator" | "narrowing" | "malformed";
}

/** Allow entries ready to match. */
export class AllowRules {
  private readonly ranges: readonly { range: IpRange; port?: number }[];
  private readonly names: readonly Extract<EgressAllowEntry, { kind: "host" }>[];

  constructor(entries: readonly EgressAllowEntry[]) {
    this.names = entries.filter((e) => e.kind === "host");
    this.ranges = entries.flatMap((e) => {
      if (e.kind !== "range") return [];
      const range = parseRange(`${e.address}/${e.prefix}`)!;
      return [{ range, ...(e.port === undefined ? {} : { port: e.port }) }];
    });
  }

  get hasRanges(): boolean {
    return this.ranges.length > 0;
  }

  /** An exact name, or a `*.` pattern's subdomains (not the name itself). */
  matchesName(dest: Destination): boolean {
    if (dest.kind !== "name") return false;
    return this.names.some(
      (r) =>
        (r.port === undefined || r.port === dest.port) &&
        (r.subdomains ? dest.name.endsWith(`.${r.name}`) : dest.name === r.name),
    );
  }

  /** An IPv6 form of an IPv4 address (`::ffff:10.0.0.5`) matches what the IPv4 one matches. */
  matchesAddress(ip: Ip, port: number): boolean {
    const v4 = embeddedIpv4(ip);
    return this.ranges.some(
      (r) =>
        (r.port === undefined || r.port === port) && (inRange(ip, r.range) || (v4 !== null && inRange(v4, r.range))),
    );
  }
}

/** A step's narrowing allow list, named in refusals (`the workflow's network.allow list`). */
export interface Narrowing {
  name: string;
  rules: AllowRules;
}

/** A narrowing list from its entries (WF_EGRESS_ALLOW's syntax); a bad entry throws, saying why. */
export function narrowing(name: string, entries: readonly string[]): Narrowing {
  const parsed = entries.map((text) => {
    const entry = parseEgressAllowEntry(text);
    if (typeof entry === "string") throw new TypeError(`${name}: ${entry}`);
    return entry;
  });
  return { name, rules: new AllowRules(parsed) };
}

/**
 * The operator's egress policy. An address is refused when it is not the public internet
 * (loopback, private, link-local, the cloud metadata address, CGNAT, multicast, reserved, in
 * IPv4 or any IPv6 form of one) or is an address of this host, unless WF_EGRESS_ALLOW allows it:
 * by an address or range that holds it, or by the name it was reached under. Ports are not
 * restricted. Pure: the host's addresses are given.
 */
export class EgressPolicy {
  private readonly allow: AllowRules;
  private readonly hostAddresses: () => readonly Ip[];

  constructor(opts: { allow: readonly EgressAllowEntry[]; hostAddresses: () => readonly Ip[] }) {
    this.allow = new AllowRules(opts.allow);
    this.hostAddresses = opts.hostAddresses;
  }

  /**
   * Why the operator's policy refuses `ip` reached as `dest`, or null. A name's refusal says what
   * kind of address it resolves to, not which: the step did not give that address, and naming it
   * would show the tenant the operator's internal DNS.
   */
  refusal(dest: Destination, ip: Ip): string | null {
    if (this.allow.matchesName(dest) || this.allow.matchesAddress(ip, dest.port)) return null;
    const what = specialAddress(ip) ?? (this.isHostAddress(ip) ? "an address of this host" : null);
    if (what === null) return null;
    if (dest.kind === "name") return `${dest.name} resolves to ${what} (allow it with WF_EGRESS_ALLOW)`;
    const v4 = embeddedIpv4(ip);
    const address = v4 ? `${formatIp(ip)} (${formatIp(v4)})` : formatIp(ip);
    return `${address} is ${what} (allow it with WF_EGRESS_ALLOW)`;
  }

  private isHostAddress(ip: Ip): boolean {
    const v4 = embeddedIpv4(ip);
    return this.hostAddresses().some((own) => sameIp(own, ip) || (v4 !== null && sameIp(own, v4)));
  }
}

/**
 * Before any DNS: a narrowing list that matches neither the name nor (having no address entries)
 * could match an address refuses the destination, so a refused name is never looked up.
 */
export function refuseByName(dest: Destination, narrowing: readonly Narrowing[]): EgressRefusal | null {
  const list = narrowing.find((n) => !n.rules.matchesName(dest) && !n.rules.hasRanges);
  return list ? notListed(dest, list) : null;
}

/**
 * The verdict on a destination and every address it resolved to (the address itself for an IP
 * literal): each narrowing list must hold the name or every address, and every address must pass
 * the operator's policy. One refused address refuses the destination: a name that mixes public
 * and internal addresses is a misconfiguration or a rebinding attempt, and which address a
 * connection would take should not decide whether it is allowed.
 */
export function judge(
  policy: EgressPolicy,
  narrowing: readonly Narrowing[],
  dest: Destination,
  addresses: readonly Ip[],
): EgressRefusal | null {
  for (const list of narrowing) {
    if (!list.rules.matchesName(dest) && !addresses.every((ip) => list.rules.matchesAddress(ip, dest.port)))
      return notListed(dest, list);
  }
  for (const ip of addresses) {
    const reason = policy.refusal(dest, ip);
    if (reason !== null) return { host: dest.host, port: dest.port, reason, rule: "operator" };
  }
  return null;
}

function notListed(dest: Destination, list: Narrowing): EgressRefusal {
  return { host: dest.host, port: dest.port, reason: `${hostPort(dest)} is not in ${list.name}`, rule: "narrowing" };
}
