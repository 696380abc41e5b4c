import { serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { CodeRunner, InteractiveProcess } from "../code/index";
import { MessageLines } from "./message-lines";

/** How long a stdio MCP server may live when its agent step sets no `timeout`. */
export const MCP_STDIO_MAX_MS = 3_600_000;
/** How long a server whose stdin was closed may take to end by itself before it is killed. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Stdio MCP servers in the code steps' sandbox: a server is a program the workflow's author
 * names, so it gets what a code step gets (its own uid, file system, PID and network namespaces,
 * the egress proxy as its only way out, the limits, its agent step's timeout), under its
 * execution owner's zygote. Only the commands the operator lists (WF_MCP_STDIO_ALLOW) run.
 */
export class SandboxedStdio {
  constructor(
    private readonly runner: CodeRunner,
    private readonly allowed: readonly string[],
  ) {}

  /** Why `command` may not be started, or undefined when it may. */
  refusal(command: readonly string[]): string | undefined {
    const [program] = command;
    if (program !== undefined && this.allowed.includes(program)) return undefined;
    const listed = this.allowed.length ? `it allows ${this.allowed.map((c) => `\`${c}\``).join(", ")}` : "it is unset";
    return `\`${program ?? ""}\` is not a command this service starts stdio MCP servers with (WF_MCP_STDIO_ALLOW: ${listed})`;
  }

  /** `maxMessageBytes`: past it a message is not read, and the client is told (an answer too large). */
  transport(command: string[], opts: { owner: string; timeoutMs: number; maxMessageBytes: number }): Transport {
    return new SandboxedStdioTransport(this.runner, command, opts);
  }
}

/** The MCP stdio transport (newline-delimited JSON-RPC) over a process of the sandbox runner. */
class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private process: InteractiveProcess | undefined;
  private readonly lines: MessageLines;
  private closing = false;
  private closed = false;

  constructor(
    private readonly runner: CodeRunner,
    private readonly command: string[],
    private readonly opts: { owner: string; timeoutMs: number; maxMessageBytes: number },
  ) {
    this.lines = new MessageLines(opts.maxMessageBytes);
  }

  async start(): Promise<void> {
    const req = {
      language: "cli" as const,
      command: this.command,
      vars: {},
      input: null,
      timeoutMs: this.opts.timeoutMs,
      owner: this.opts.owner,
      network: true,
    };
    this.process = this.runner.open(req, (chunk) => this.receive(chunk));
    void this.process.result.then((result) => {
      if (!result.ok && !this.closing) this.onerror?.(new Error(`the server ended: ${result.error}`));
      this.finish();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (!this.process || this.closed) throw new Error("the MCP server is not running");
    this.process.write(serializeMessage(message));
  }

  /** As for any stdio server: its input ends, and it is killed if it does not end by itself. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.process) {
      this.process.end();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.process.result,
        new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS))),
      ]);
      clearTimeout(timer);
      this.process.kill();
    }
    this.finish();
  }

  private receive(chunk: string): void {
    const { messages, tooLarge } = this.lines.push(chunk);
    for (const message of messages) {
      if (message instanceof Error) this.onerror?.(message);
      else this.onmessage?.(message);
    }
    // Told once: the client's pool drops the connection (McpPool), which stops the server.
    if (tooLarge) this.onerror?.(tooLarge);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}
