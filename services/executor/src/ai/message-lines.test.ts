import { describe, expect, it } from "vitest";
import { tooLargeAnswer } from "../egress";
import { MessageLines } from "./message-lines";

const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });

describe("MessageLines", () => {
  it("reads messages split anywhere across chunks, CRLF and blank lines included", () => {
    const lines = new MessageLines(1_000);
    const text = `${ping(1)}\r\n\n${ping(2)}\n${ping(3)}\n`;
    const got = [...text].flatMap((c) => lines.push(c).messages);
    expect(got).toEqual([1, 2, 3].map((id) => ({ jsonrpc: "2.0", id, method: "ping" })));
  });

  it("gives a line that is no message as an error, and reads on", () => {
    const { messages } = new MessageLines(1_000).push(`not json\n${ping(1)}\n`);
    expect(messages[0]).toBeInstanceOf(Error);
    expect(messages[1]).toEqual({ jsonrpc: "2.0", id: 1, method: "ping" });
  });

  it("stops at the first line past its bound, counted in bytes across chunks, and reads nothing after", () => {
    const lines = new MessageLines(10);
    expect(lines.push("ééééé")).toEqual({ messages: [] });
    const { messages, tooLarge } = lines.push("x\n");
    expect(messages).toEqual([]);
    expect(tooLargeAnswer(tooLarge)).toBe(
      "the answer is larger than 10 bytes, the most taken of one answer from such a server",
    );
    expect(lines.push(`${ping(2)}\n`)).toEqual({ messages: [] });
  });
});
