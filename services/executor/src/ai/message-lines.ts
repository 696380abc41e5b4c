import { deserializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { ResponseTooLargeError } from "../egress";

/** What a chunk of a stdio MCP server's output came to. */
export interface Lines {
  /** Each line it completed: the message, or why the line is none (then the client is told). */
  messages: (JSONRPCMessage | Error)[];
  /** Set at the chunk where a message passed the bound: nothing after it is read. */
  tooLarge?: ResponseTooLargeError;
}

/**
 * A stdio MCP server's newline-delimited JSON-RPC messages, none past `maxBytes`. A line is kept in pieces until its
 * end comes, each chunk looked at once: the SDK's ReadBuffer copies all it holds at every chunk (a 10 MB line in 64 KiB
 * chunks held the executor's thread 0.36-0.63 s, against 2 ms here), and at its 10 MB drops what it holds and reads the
 * rest of that line as new lines, while the request waits for its timeout.
 */
export class MessageLines {
  #pieces: string[] = [];
  #bytes = 0;
  #overflowed = false;

  constructor(private readonly maxBytes: number) {}

  push(chunk: string): Lines {
    const messages: (JSONRPCMessage | Error)[] = [];
    if (this.#overflowed) return { messages };
    let from = 0;
    for (;;) {
      const end = chunk.indexOf("\n", from);
      if (!this.#take(end < 0 ? chunk.slice(from) : chunk.slice(from, end)))
        return { messages, tooLarge: new ResponseTooLargeError(this.maxBytes) };
      if (end < 0) return { messages };
      const line = this.#pieces.join("").replace(/\r$/, "");
      this.#pieces = [];
      this.#bytes = 0;
      from = end + 1;
      if (line.trim() === "") continue;
      try {
        messages.push(deserializeMessage(line));
      } catch (err) {
        messages.push(err instanceof Error ? err : new Error(String(err)));
      }
    }
  }

  /** Keeps `piece` of the current line; false once the line passes the bound. */
  #take(piece: string): boolean {
    if (piece === "") return true;
    this.#bytes += Buffer.byteLength(piece);
    if (this.#bytes > this.maxBytes) {
      this.#pieces = [];
      this.#overflowed = true;
      return false;
    }
    this.#pieces.push(piece);
    return true;
  }
}
