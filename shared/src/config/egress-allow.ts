import { domainToASCII } from "node:url";
import { z } from "zod";
import { parseIpRange } from "../api/webhooks-ip";

/**
 * One entry of an egress allow list: the operator's WF_EGRESS_ALLOW, or a step's narrowing list
 * (`network: { allow: [...] }`). An address or CIDR range (`10.1.0.0/16`, `fd00::/8`), or a host
 * name (`db.local`) or `*.` pattern (`*.example.com`: its subdomains, not itself); each with an
 * optional port (`db.local:5432`, `10.0.0.5:443`, `[fd00::1]:443`, `[fd00::/8]:443`).
 */
const port = z.number().int().min(1).max(65_535).optional();
/** An entry as parsed, e.g. as the service hands WF_EGRESS_ALLOW to its sandbox runners. */
export const EgressAllowEntrySchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("range"),
    address: z.string(),
    prefix: z.number().int().min(0).max(128),
    family: z.union([z.literal(4), z.literal(6)]),
    port,
  }),
  z.object({ kind: z.literal("host"), name: z.string().min(1), subdomains: z.boolean(), port }),
]);
export type EgressAllowEntry = z.infer<typeof EgressAllowEntrySchema>;

const PORT = /^[1-9]\d{0,4}$/;
const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

/** The entry, or why it is not one. */
export function parseEgressAllowEntry(text: string): EgressAllowEntry | string {
  const entry = text.trim();
  let target = entry;
  let portText: string | undefined;
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(entry);
  if (bracketed) [, target = "", portText] = bracketed;
  // One colon separates a port; more make a bare IPv6 address, which cannot carry one.
  else if (entry.split(":").length === 2) [target = "", portText] = entry.split(":");
  let port: number | undefined;
  if (portText !== undefined) {
    if (!PORT.test(portText) || Number(portText) > 65_535)
      return `"${entry}": the port must be a number from 1 to 65535`;
    port = Number(portText);
  }
  const withPort = port === undefined ? {} : { port };
  const range = parseIpRange(target);
  if (range && (!bracketed || range.family === 6)) return { kind: "range", ...range, ...withPort };
  if (bracketed || /[:/]/.test(target)) return `"${entry}" is not an address, a CIDR range or a host name`;
  if (target === "*") return `"${entry}": to allow every address, write 0.0.0.0/0,::/0`;
  const subdomains = target.startsWith("*.");
  const name = domainToASCII((subdomains ? target.slice(2) : target).replace(/\.$/, ""));
  const labels = name.split(".");
  if (!name || !labels.every((l) => LABEL.test(l))) return `"${entry}" is not an address, a CIDR range or a host name`;
  // `10.1` or `127.1` would be an address in another notation: the list takes dotted quads only.
  if (/^(\d+|0x[0-9a-f]*)$/.test(labels.at(-1)!))
    return `"${entry}": write IPv4 addresses as four decimal numbers (a.b.c.d)`;
  return { kind: "host", name, subdomains, ...withPort };
}

/** A comma-separated list of entries (WF_EGRESS_ALLOW); every bad entry is named. */
export const EgressAllowList = z.string().transform((text, ctx) => {
  const entries: EgressAllowEntry[] = [];
  for (const item of text
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean)) {
    const parsed = parseEgressAllowEntry(item);
    if (typeof parsed === "string") ctx.addIssue({ code: "custom", message: parsed });
    else entries.push(parsed);
  }
  return entries;
});
