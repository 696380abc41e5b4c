import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { waitFor } from "@wf/testing";
import { afterThisTurnsWrites, fitsOnALine, readMessages, writeFollowed, writeLine } from "./protocol";

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

describe("a message's following line", () => {
  it("comes with its message as text, unparsed, however the chunks cut it; the messages around it as before", async () => {
    const stream = new PassThrough();
    const got: [unknown, string | undefined][] = [];
    readMessages(stream, (msg, follows) => got.push([msg, follows]));
    // Line breaks and a U+2028 inside its strings (escaped by JSON.stringify), and characters of several bytes.
    const text = JSON.stringify({ s: "a\nb\u2028c ünïcødé 🚀", n: [1, 2.5, null] });
    const bytes = Buffer.from(`{"t":"a"}\n{"t":"b","follows":"input"}\n${text}\n{"t":"c"}\n`);
    // Cut every 5 bytes: through the middle of characters and of the lines.
    for (let i = 0; i < bytes.length; i += 5) stream.write(bytes.subarray(i, i + 5));
    await waitFor(() => got.length === 3, { what: "three messages" });
    expect(got).toEqual([
      [{ t: "a" }, undefined],
      [{ t: "b", follows: "input" }, text],
      [{ t: "c" }, undefined],
    ]);
  });

  it("leaves with its message in the turn's one write", async () => {
    const stream = new PassThrough();
    const writes: string[] = [];
    stream.on("data", (chunk: Buffer) => writes.push(chunk.toString()));
    writeLine(stream, '{"t":"a"}\n');
    writeFollowed(stream, '{"t":"b","follows":"input"}\n', "[1,2]");
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(['{"t":"a"}\n{"t":"b","follows":"input"}\n[1,2]\n']);
  });

  it("is only a text that holds no line break", () => {
    expect(fitsOnALine(JSON.stringify({ s: "a\nb\r\n" }))).toBe(true);
    expect(fitsOnALine('{"a":\n1}')).toBe(false);
  });
});
