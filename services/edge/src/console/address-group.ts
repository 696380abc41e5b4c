import { isIPv4, isIPv6 } from "node:net";

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * The client a login budget counts against: an IPv4 address as it is (also when a dual-stack
 * socket reports it as `::ffff:a.b.c.d`), an IPv6 address by its /64. A host is commonly given a
 * whole /64, so counting its addresses one by one would give it 2^64 budgets.
 */
export function addressGroup(ip: string): string {
  const v4 = MAPPED_V4.exec(ip)?.[1] ?? ip;
  if (isIPv4(v4)) return v4;
  if (!isIPv6(ip)) return ip;
  return `${hextets(ip).slice(0, 4).join(":")}::/64`;
}

/** The eight groups of an IPv6 address, `::` expanded, each without leading zeros. */
function hextets(ip: string): string[] {
  const [head = "", tail] = ip.split("%")[0]!.split("::");
  // A trailing dotted IPv4 part (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) fills the last two groups.
  const groups = (part: string | undefined) =>
    part ? part.split(":").flatMap((g) => (g.includes(".") ? ["0", "0"] : [g])) : [];
  const left = groups(head);
  const right = groups(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill("0");
  return [...left, ...zeros, ...right].map((g) => parseInt(g, 16).toString(16));
}
