/**
 * Browser stand-in for the one `node:url` function shared/ uses: a host name in its ASCII (punycode) form, "" when
 * invalid.
 */
export function domainToASCII(domain: string): string {
  try {
    return new URL(`http://${domain}`).hostname;
  } catch {
    return "";
  }
}
