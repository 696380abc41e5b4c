/**
 * Browser stand-in for the one `node:net` function shared/ uses: 4 or 6 for an IPv4 or IPv6
 * address, 0 otherwise, as Node answers for the forms the workflow validator meets (egress entries).
 */
export function isIP(input: string): 0 | 4 | 6 {
  const octet = "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";
  if (new RegExp(`^${octet}(\\.${octet}){3}$`).test(input)) return 4;
  if (!input.includes(":") || !/^[0-9A-Fa-f:.]+(%[\w.-]+)?$/.test(input)) return 0;
  try {
    // The URL parser accepts exactly the IPv6 literals (it refuses a second `::`, too many groups, …).
    new URL(`http://[${input.replace(/%.*$/, "")}]/`);
    return 6;
  } catch {
    return 0;
  }
}
