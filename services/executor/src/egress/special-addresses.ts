import { embeddedIpv4, inRange, parseRange, type Ip, type IpRange } from "./ip";

/**
 * Addresses a step or an MCP server URL may not reach unless the operator allows them: what is
 * not the public internet (IANA's special-purpose registries, RFC 6890 and successors). The first
 * matching row names the address in refusals.
 */
const SPECIAL: readonly (readonly [range: string, what: string])[] = [
  ["169.254.169.254/32", "the cloud metadata address"],
  ["fd00:ec2::254/128", "the cloud metadata address"],
  ["0.0.0.0/8", "an unspecified address"],
  ["::/128", "an unspecified address"],
  ["127.0.0.0/8", "a loopback address"],
  ["::1/128", "a loopback address"],
  ["10.0.0.0/8", "a private address"],
  ["172.16.0.0/12", "a private address"],
  ["192.168.0.0/16", "a private address"],
  ["fc00::/7", "a private address"],
  ["fec0::/10", "a private address"], // site-local, deprecated
  ["64:ff9b:1::/48", "a private address"], // local-use NAT64
  ["100.64.0.0/10", "a shared (CGNAT) address"],
  ["169.254.0.0/16", "a link-local address"],
  ["fe80::/10", "a link-local address"],
  ["224.0.0.0/4", "a multicast address"],
  ["ff00::/8", "a multicast address"],
  ["255.255.255.255/32", "the broadcast address"],
  ["192.0.0.0/24", "a reserved address"],
  ["192.0.2.0/24", "a reserved address"],
  ["192.88.99.0/24", "a reserved address"],
  ["198.18.0.0/15", "a reserved address"],
  ["198.51.100.0/24", "a reserved address"],
  ["203.0.113.0/24", "a reserved address"],
  ["240.0.0.0/4", "a reserved address"],
  ["100::/64", "a reserved address"],
  ["2001::/23", "a reserved address"], // protocol assignments: Teredo, benchmarking, ORCHID…
  ["2001:db8::/32", "a reserved address"],
  ["3fff::/20", "a reserved address"],
  ["5f00::/16", "a reserved address"],
];

const TABLE: readonly { range: IpRange; what: string }[] = SPECIAL.map(([text, what]) => ({
  range: parseRange(text)!,
  what,
}));
/** Only 2000::/3 is allocated as global unicast; whatever else an IPv6 address is, it is not the internet. */
const GLOBAL_UNICAST = parseRange("2000::/3")!;

/**
 * What makes `ip` refused by default (`"a loopback address"`), or null for a public address.
 * An IPv6 form of an IPv4 address (mapped, compatible, NAT64, 6to4) is judged by that address.
 */
export function specialAddress(ip: Ip): string | null {
  const row = TABLE.find((r) => inRange(ip, r.range));
  if (row) return row.what;
  const v4 = embeddedIpv4(ip);
  if (v4) return specialAddress(v4);
  return ip.family === 6 && !inRange(ip, GLOBAL_UNICAST) ? "a reserved address" : null;
}
