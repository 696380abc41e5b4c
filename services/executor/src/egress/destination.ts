import { formatIp, parseIp, type Ip } from "./ip";

/** Where a client asked to go, normalised: an IP literal as its address, a name in lower-case ASCII. */
export type Destination =
  { kind: "ip"; ip: Ip; host: string; port: number } | { kind: "name"; name: string; host: string; port: number };

const NAME = /^(?!-)[a-z0-9_-]{1,63}(?<!-)(\.(?!-)[a-z0-9_-]{1,63}(?<!-))*$/;

/**
 * A host as a client wrote it, read the way the WHATWG URL parser reads a URL's host: every IPv4
 * notation (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`, `127.0.0.1.`, percent-encoded,
 * full-width digits) becomes its dotted quad, IPv6 in brackets its canonical form, names their
 * lower-case ASCII (IDNA) form without a trailing dot. A zone id, or anything that is neither an
 * address nor a host name, is refused: the answer is why.
 */
export function parseDestination(rawHost: string, port: number): Destination | string {
  const shown = JSON.stringify(rawHost);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) return `port ${port} is not a port number`;
  if (/^\[.*%.*\]$/.test(rawHost)) return `${shown}: IPv6 zone ids are refused`;
  // Characters that would make the URL parser read a user, a port or a path instead of the host.
  if (rawHost === "" || /[\s@/\\?#]/.test(rawHost) || (!rawHost.startsWith("[") && rawHost.includes(":")))
    return `${shown} is not a host name or an address`;
  let hostname: string;
  try {
    hostname = new URL(`http://${rawHost}/`).hostname;
  } catch {
    return `${shown} is not a host name or an address`;
  }
  const ip = parseIp(hostname.startsWith("[") ? hostname.slice(1, -1) : hostname);
  if (ip) return { kind: "ip", ip, host: formatIp(ip), port };
  const name = hostname.replace(/\.$/, "");
  if (name.length > 253 || !NAME.test(name)) return `${shown} is not a host name or an address`;
  return { kind: "name", name, host: name, port };
}

/** `host:port` of a CONNECT request; IPv6 in brackets (`[::1]:443`). */
export function parseAuthority(authority: string): Destination | string {
  const m = /^(\[[^\]]*\]|[^:[\]]*):(\d{1,5})$/.exec(authority);
  if (!m) return `${JSON.stringify(authority)} is not host:port`;
  return parseDestination(m[1]!, Number(m[2]));
}

/** `host:port` for messages, IPv6 in brackets. */
export function hostPort(dest: Destination): string {
  return dest.kind === "ip" && dest.ip.family === 6 ? `[${dest.host}]:${dest.port}` : `${dest.host}:${dest.port}`;
}
