import { describe, expect, it } from "vitest";
import { CodeSources, sourceText } from "./js-code-sources";
import { step } from "./testing/processes";

describe("CodeSources", () => {
  it("works a code's source and key out once, and keeps JavaScript and TypeScript of the same text apart", () => {
    const sources = new CodeSources();
    const js = sources.of(step("javascript", "return 1"));
    expect(sources.of(step("javascript", "return 1"))).toBe(js);
    expect(sourceText(js.source)).toEqual({
      text: expect.stringContaining("\nreturn 1\n") as string,
      typescript: false,
    });
    const ts = sources.of(step("typescript", "return 1"));
    expect(sourceText(ts.source)).toEqual({ text: sourceText(js.source).text, typescript: true });
    expect(ts.key).not.toBe(js.key);
    expect(sources.of(step("javascript", "return 2")).key).not.toBe(js.key);
  });

  it("keeps at most 256 codes, the least recently run out first", () => {
    const sources = new CodeSources();
    const first = sources.of(step("javascript", "return 0"));
    const second = sources.of(step("javascript", "return 1"));
    for (let i = 2; i < 256; i++) sources.of(step("javascript", `return ${i}`));
    // Run again at the bound: the second is now the least recently run.
    expect(sources.of(step("javascript", "return 0"))).toBe(first);
    sources.of(step("javascript", "return 256"));
    expect(sources.of(step("javascript", "return 0"))).toBe(first);
    expect(sources.of(step("javascript", "return 1"))).not.toBe(second);
  });
});
