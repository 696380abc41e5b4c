import { describe, expect, it } from "vitest";
import { KeyTurns } from "./key-turns";

/** A call that records when it starts and ends, and ends when told to. */
function call(log: string[], name: string) {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  const fn = async () => {
    log.push(`${name} starts`);
    await ended;
    log.push(`${name} ends`);
    if (name.endsWith("!")) throw new Error(name);
    return name;
  };
  return { fn, end };
}

describe("KeyTurns", () => {
  it("runs one key's calls one at a time in the order they came, other keys' beside them", async () => {
    const turns = new KeyTurns();
    const log: string[] = [];
    const [a1, a2, a3, b1] = ["a1!", "a2", "a3", "b1"].map((name) => call(log, name));
    const results = [
      turns.run("a", a1!.fn),
      turns.run("a", a2!.fn),
      turns.run("a", a3!.fn),
      turns.run("b", b1!.fn),
    ].map((r) => r.catch((err: Error) => `failed: ${err.message}`));
    await new Promise((resolve) => setImmediate(resolve));
    expect(log).toEqual(["a1! starts", "b1 starts"]);
    a3!.end();
    a2!.end();
    a1!.end();
    b1!.end();
    expect(await Promise.all(results)).toEqual(["failed: a1!", "a2", "a3", "b1"]);
    // A failed call does not stop the next of its key.
    expect(log.filter((line) => line.startsWith("a"))).toEqual([
      "a1! starts",
      "a1! ends",
      "a2 starts",
      "a2 ends",
      "a3 starts",
      "a3 ends",
    ]);
  });
});
