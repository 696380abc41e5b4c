import { isIP } from "node:net";

/** One address (`10.0.0.1`, `::1`) or a CIDR range (`10.0.0.0/8`, `2001:db8::/32`). */
export function parseIpRange(entry: string): { address: string; prefix: number; family: 4 | 6 } | null {
  const [address = "", prefixText, extra] = entry.trim().split("/");
  const family = isIP(address);
  if (extra !== undefined || (family !== 4 && family !== 6)) return null;
  const max = family === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= max ? { address, prefix, family } : null;
}
