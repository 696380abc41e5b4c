import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { encode } from "gpt-tokenizer/encoding/o200k_base";

/** One scripted answer of the test provider. */
export interface Reply {
  /** Anything but 200 answers an error body with this status. */
  status?: number;
  headers?: Record<string, string>;
  text?: string;
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
  /**
   * The token counts this answer reports; "counted": as OpenAI bills a call, with the real
   * o200k_base tokenizer (openai protocol).
   */
  usage?: { prompt: number; completion: number } | "counted";
  /** How a streamed text is cut into events (default: pieces of 4 characters). */
  pieces?: string[];
  /** The answer waits for this: its step stays running until the test lets it end. */
  held?: Promise<void>;
}

/** A request the server received: what the service sent, as the provider sees it. */
export interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
}

const DEFAULT_USAGE = { prompt: 11, completion: 7 };

/**
 * A real HTTP server speaking an LLM protocol (OpenAI chat completions or Anthropic messages),
 * streamed (SSE) or not, as the request asks. Answers are scripted per model id, so the tests of
 * one file, each with its own model, do not see each other's answers; a request for a model with
 * nothing scripted gets a 500.
 */
export class LlmTestServer {
  readonly received: Received[] = [];
  private readonly scripts = new Map<string, Reply[]>();
  private readonly reported = new Map<string, { prompt: number; completion: number }>();
  /** Requests being answered now and the most at once, per model and ("") of every model. */
  private readonly open = new Map<string, { now: number; most: number }>();

  private constructor(
    private readonly server: Server,
    readonly protocol: "openai" | "anthropic",
  ) {}

  static async start(protocol: "openai" | "anthropic"): Promise<LlmTestServer> {
    let self: LlmTestServer | null = null;
    const server = createServer((req, res) => void self!.handle(req, res));
    self = new LlmTestServer(server, protocol);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return self;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
  }

  script(model: string, ...replies: Reply[]): void {
    this.scripts.set(model, [...(this.scripts.get(model) ?? []), ...replies]);
  }

  /** The requests made for one model, in order. */
  requests(model: string): Received[] {
    return this.received.filter((r) => r.body.model === model);
  }

  /** The tokens this server reported for a model, summed over its successful answers. */
  usage(model: string): { prompt: number; completion: number } {
    return this.reported.get(model) ?? { prompt: 0, completion: 0 };
  }

  /** Requests of `model` (of every model: none given) being answered now, and the most there were at once. */
  inFlight(model = ""): { now: number; most: number } {
    return { ...(this.open.get(model) ?? { now: 0, most: 0 }) };
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
    this.received.push({ path: req.url ?? "", headers: req.headers, body });
    this.count(String(body.model), res);
    const expected = this.protocol === "openai" ? "/v1/chat/completions" : "/v1/messages";
    if (!req.url?.startsWith(expected)) return this.error(res, 404, `no route ${req.url}`);
    const model = String(body.model);
    const reply = this.scripts.get(model)?.shift();
    if (!reply) return this.error(res, 500, `nothing scripted for model ${model}`);
    if (reply.status !== undefined && reply.status !== 200)
      return this.error(res, reply.status, `scripted ${reply.status}`, reply.headers);
    await reply.held;
    const usage = reply.usage === "counted" ? countedUsage(body, reply) : (reply.usage ?? DEFAULT_USAGE);
    const sum = this.usage(model);
    this.reported.set(model, { prompt: sum.prompt + usage.prompt, completion: sum.completion + usage.completion });
    const stream = body.stream === true;
    if (this.protocol === "openai")
      return stream ? openAiStream(res, model, reply, usage) : openAiJson(res, model, reply, usage);
    return stream ? anthropicStream(res, model, reply, usage) : anthropicJson(res, model, reply, usage);
  }

  /** Counts the request in flight until its answer ends or its client leaves. */
  private count(model: string, res: ServerResponse): void {
    for (const key of ["", model]) {
      const open = this.open.get(key) ?? { now: 0, most: 0 };
      open.now++;
      open.most = Math.max(open.most, open.now);
      this.open.set(key, open);
    }
    res.once("close", () => {
      for (const key of ["", model]) this.open.get(key)!.now--;
    });
  }

  private error(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
    const body =
      this.protocol === "openai"
        ? { error: { message, type: "test_error", code: status } }
        : { type: "error", error: { type: "test_error", message } };
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
  }
}

/**
 * The tokens of an OpenAI chat call as OpenAI's cookbook counts them: each message's content and
 * 3 tokens of format per message, 3 more priming the answer, and the tools' definitions.
 */
function countedUsage(body: Record<string, unknown>, reply: Reply): { prompt: number; completion: number } {
  const messages = (body.messages ?? []) as { content?: unknown }[];
  let prompt = 3;
  for (const m of messages) {
    prompt += 3 + encode(typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")).length;
  }
  if (Array.isArray(body.tools) && body.tools.length > 0) prompt += encode(JSON.stringify(body.tools)).length;
  return { prompt, completion: encode(reply.text ?? "").length };
}

function pieces(reply: Reply): string[] {
  if (reply.pieces) return reply.pieces;
  const text = reply.text ?? "";
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 4) out.push(text.slice(i, i + 4));
  return out;
}

function sse(res: ServerResponse): (data: unknown, event?: string) => void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  return (data, event) =>
    res.write(`${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`);
}

function openAiJson(
  res: ServerResponse,
  model: string,
  reply: Reply,
  usage: { prompt: number; completion: number },
): void {
  const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
    id: `call_${i}`,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
  res.writeHead(200, { "content-type": "application/json" }).end(
    JSON.stringify({
      id: "chatcmpl-test",
      object: "chat.completion",
      model,
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: reply.text ?? null,
            ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
          },
          finish_reason: toolCalls.length ? "tool_calls" : "stop",
        },
      ],
      usage: {
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        total_tokens: usage.prompt + usage.completion,
      },
    }),
  );
}

function openAiStream(
  res: ServerResponse,
  model: string,
  reply: Reply,
  usage: { prompt: number; completion: number },
): void {
  const send = sse(res);
  const chunk = (delta: unknown, finish: string | null = null) =>
    send({
      id: "chatcmpl-test",
      object: "chat.completion.chunk",
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
  chunk({ role: "assistant", content: "" });
  for (const p of pieces(reply)) chunk({ content: p });
  (reply.toolCalls ?? []).forEach((c, index) => {
    // As OpenAI sends them: id and name first, then the arguments in two parts.
    const args = JSON.stringify(c.arguments);
    const half = Math.floor(args.length / 2);
    chunk({
      tool_calls: [{ index, id: `call_${index}`, type: "function", function: { name: c.name, arguments: "" } }],
    });
    chunk({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] });
    chunk({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] });
  });
  chunk({}, reply.toolCalls?.length ? "tool_calls" : "stop");
  send({
    id: "chatcmpl-test",
    object: "chat.completion.chunk",
    model,
    choices: [],
    usage: {
      prompt_tokens: usage.prompt,
      completion_tokens: usage.completion,
      total_tokens: usage.prompt + usage.completion,
    },
  });
  send("[DONE]");
  res.end();
}

function anthropicContent(reply: Reply): unknown[] {
  return [
    ...(reply.text ? [{ type: "text", text: reply.text }] : []),
    ...(reply.toolCalls ?? []).map((c, i) => ({
      type: "tool_use",
      id: `toolu_${i}`,
      name: c.name,
      input: c.arguments,
    })),
  ];
}

function anthropicJson(
  res: ServerResponse,
  model: string,
  reply: Reply,
  usage: { prompt: number; completion: number },
): void {
  res.writeHead(200, { "content-type": "application/json" }).end(
    JSON.stringify({
      id: "msg_test",
      type: "message",
      role: "assistant",
      model,
      content: anthropicContent(reply),
      stop_reason: reply.toolCalls?.length ? "tool_use" : "end_turn",
      usage: { input_tokens: usage.prompt, output_tokens: usage.completion },
    }),
  );
}

function anthropicStream(
  res: ServerResponse,
  model: string,
  reply: Reply,
  usage: { prompt: number; completion: number },
): void {
  const send = sse(res);
  const event = (type: string, data: Record<string, unknown>) => send({ type, ...data }, type);
  event("message_start", {
    message: {
      id: "msg_test",
      type: "message",
      role: "assistant",
      model,
      content: [],
      usage: { input_tokens: usage.prompt, output_tokens: 1 },
    },
  });
  let index = 0;
  if (reply.text) {
    event("content_block_start", { index, content_block: { type: "text", text: "" } });
    event("ping", {});
    for (const p of pieces(reply)) event("content_block_delta", { index, delta: { type: "text_delta", text: p } });
    event("content_block_stop", { index });
    index++;
  }
  (reply.toolCalls ?? []).forEach((c, i) => {
    const args = JSON.stringify(c.arguments);
    const half = Math.floor(args.length / 2);
    event("content_block_start", {
      index,
      content_block: { type: "tool_use", id: `toolu_${i}`, name: c.name, input: {} },
    });
    event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: args.slice(0, half) } });
    event("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: args.slice(half) } });
    event("content_block_stop", { index });
    index++;
  });
  event("message_delta", {
    delta: { stop_reason: reply.toolCalls?.length ? "tool_use" : "end_turn" },
    usage: { output_tokens: usage.completion },
  });
  event("message_stop", {});
  res.end();
}
