import { describe, expect, it } from "vitest";
import { encode } from "gpt-tokenizer/encoding/o200k_base";
import { estimateTokens } from "./token-estimate";

/** Texts of the kinds prompts are made of; each counted by the real o200k_base tokenizer too. */
const SAMPLES: Record<string, string> = {
  prose:
    "The quarterly report shows that revenue grew by twelve percent, while operating costs stayed flat. Customers in the northern region renewed their contracts at a higher rate than last year, and the support team closed most tickets within a day. Please summarise the main risks for the next quarter in three short bullet points.",
  short: "Say hello to Ada in five words.",
  json: JSON.stringify({
    ticket: {
      id: 48213,
      customer: "Acme Corporation",
      priority: "high",
      subject: "Invoice totals do not match the order",
      lines: [
        { sku: "A-1001", qty: 3, price: 19.99 },
        { sku: "B-2002", qty: 1, price: 249.5 },
      ],
      createdAt: "2026-11-30T08:15:00Z",
    },
  }),
  code: "function total(lines) {\n  return lines.reduce((sum, l) => sum + l.qty * l.price, 0);\n}\nconsole.log(total(order.lines).toFixed(2));",
  german:
    "Bitte fassen Sie die wichtigsten Punkte der Besprechung zusammen und schicken Sie die Zusammenfassung an alle Teilnehmer.",
  repeated:
    "Our logistics partner reported delays at the port because of a storm, and three containers will arrive about a week late. ".repeat(
      30,
    ),
  urls: "See https://example.com/docs/api/v2/executions?limit=50&cursor=abc123 and https://github.com/acme/widgets/issues/4521 for details.",
};

describe("estimateTokens", () => {
  it("stays within 15 % of o200k_base on prose, JSON, code, German and URLs", () => {
    for (const [kind, text] of Object.entries(SAMPLES)) {
      const real = encode(text).length;
      const estimate = estimateTokens(text);
      const off = estimate / real - 1;
      console.log(`${kind}: o200k ${real}, estimate ${estimate} (${(off * 100).toFixed(1)} %)`);
      expect(Math.abs(off), kind).toBeLessThanOrEqual(0.15);
    }
  });
});
