import { BlockList, isIPv4 } from "node:net";
import { parseIpRange } from "@wf/shared/api";

const MAPPED_V4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;

/**
 * Whether `address` (the request's client address, as WF_TRUSTED_PROXIES decides it) is in
 * the allow-list; an empty list allows every address. A dual-stack socket reports IPv4 peers
 * as `::ffff:a.b.c.d`: they are matched as the IPv4 address they are.
 */
export function sourceAllowed(allowList: readonly string[], address: string): boolean {
  if (allowList.length === 0) return true;
  const list = new BlockList();
  for (const entry of allowList) {
    const range = parseIpRange(entry);
    if (range) list.addSubnet(range.address, range.prefix, range.family === 4 ? "ipv4" : "ipv6");
  }
  const v4 = MAPPED_V4.exec(address)?.[1] ?? address;
  return isIPv4(v4) ? list.check(v4, "ipv4") : list.check(address, "ipv6");
}
