import { isIP } from "node:net";

/** An IP address as its bytes: 4 for IPv4, 16 for IPv6. */
export interface Ip {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
}

export interface IpRange {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  readonly prefix: number;
}

/**
 * An address in a standard textual form (what `net.isIP` accepts: dotted quads, IPv6 with `::`
 * and a trailing dotted quad). A zone id (`fe80::1%eth0`) is dropped: it names an interface, not
 * another address. Anything else is null; other notations are the host parser's concern.
 */
export function parseIp(text: string): Ip | null {
  const address = text.split("%")[0]!;
  const family = isIP(address);
  if (family === 4) return { family, bytes: Uint8Array.from(address.split("."), Number) };
  if (family !== 6) return null;
  const [head = "", tail] = address.split("::");
  const words = (part: string): number[] =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => {
          if (!group.includes(".")) return [parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const before = words(head);
  const after = tail === undefined ? [] : words(tail);
  const all =
    tail === undefined ? before : [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
  const bytes = new Uint8Array(16);
  all.forEach((word, i) => {
    bytes[2 * i] = word >> 8;
    bytes[2 * i + 1] = word & 0xff;
  });
  return { family, bytes };
}

/** `a.b.c.d/n` or `v6/n` (`n` defaults to the whole address); null when malformed. */
export function parseRange(text: string): IpRange | null {
  const [address = "", prefixText] = text.split("/");
  const ip = parseIp(address);
  if (!ip || address.includes("%")) return null;
  const max = ip.family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  return Number.isInteger(prefix) && prefix >= 0 && prefix <= max ? { ...ip, prefix } : null;
}

export function inRange(ip: Ip, range: IpRange): boolean {
  if (ip.family !== range.family) return false;
  const whole = range.prefix >> 3;
  for (let i = 0; i < whole; i++) if (ip.bytes[i] !== range.bytes[i]) return false;
  const bits = range.prefix & 7;
  if (bits === 0) return true;
  const mask = (0xff << (8 - bits)) & 0xff;
  return (ip.bytes[whole]! & mask) === (range.bytes[whole]! & mask);
}

export function sameIp(a: Ip, b: Ip): boolean {
  return a.family === b.family && a.bytes.every((byte, i) => byte === b.bytes[i]);
}

export function formatIp(ip: Ip): string {
  if (ip.family === 4) return ip.bytes.join(".");
  const words = Array.from({ length: 8 }, (_, i) => ((ip.bytes[2 * i]! << 8) | ip.bytes[2 * i + 1]!).toString(16));
  // Through the URL parser, which shortens IPv6 the standard way (RFC 5952).
  return new URL(`http://[${words.join(":")}]/`).hostname.slice(1, -1);
}

const V4_IN_V6: readonly { range: IpRange; offset: number }[] = [
  { range: parseRange("::ffff:0:0/96")!, offset: 12 }, // IPv4-mapped
  // IPv4-compatible (deprecated). Not ::/104: `::`, `::1` and their neighbours are IPv6's own.
  { range: parseRange("::/96")!, offset: 12 },
  { range: parseRange("64:ff9b::/96")!, offset: 12 }, // NAT64, well-known prefix
  { range: parseRange("2002::/16")!, offset: 2 }, // 6to4
];
const IPV6_OWN = parseRange("::/104")!;

/**
 * The IPv4 address an IPv6 one stands for, in the forms a host or a gateway translates to IPv4:
 * mapped (`::ffff:127.0.0.1`), compatible (`::127.0.0.1`), NAT64 (`64:ff9b::7f00:1`) and 6to4
 * (`2002:7f00:1::`). Such an address reaches whatever the IPv4 one would.
 */
export function embeddedIpv4(ip: Ip): Ip | null {
  if (ip.family !== 6 || inRange(ip, IPV6_OWN)) return null;
  for (const { range, offset } of V4_IN_V6) {
    if (inRange(ip, range)) return { family: 4, bytes: ip.bytes.slice(offset, offset + 4) };
  }
  return null;
}
