import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { afterThisTurnsWrites, writeLine } from "./protocol";

describe("writing a turn's lines", () => {
  it("writes a turn's lines in one write, before what waits for them, even when it was asked for first", async () => {
    const stream = new PassThrough();
    const writes: string[] = [];
    stream.on("data", (chunk: Buffer) => writes.push(chunk.toString()));
    const seen = new Promise<string[]>((resolve) => {
      // As a process step's clean-up asks, before its result is written in the same turn.
      afterThisTurnsWrites(() => resolve([...writes]));
    });
    writeLine(stream, "a\n");
    await Promise.resolve();
    writeLine(stream, "b\n");
    expect(writes).toEqual([]);
    expect(await seen).toEqual(["a\nb\n"]);
  });
});
