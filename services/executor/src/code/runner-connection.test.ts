import { mkdtemp, rm } from "node:fs/promises";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@wf/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { JsPool } from "./js-run-clock";
import { SENT_MAX_CODES } from "./code-refs";
import { JS_SHARES } from "./js-bounds";
import { JsonText } from "./json-text";
import {
  messageLine,
  readMessages,
  writeFollowed,
  writeMessage,
  type ClientMessage,
  type RunnerMessage,
} from "./protocol";
import { RunnerConnection } from "./runner-connection";
import { serveConnection, type Served } from "./sandbox-server";
import { step } from "./testing/processes";
import { refusedIsolation, type RunResult } from "./types";

interface Peer {
  client: Socket;
  /** Every message received, in order. */
  messages: ClientMessage[];
  /** Runs received, by id, in the order they came. */
  runs: number[];
  /** Runs cancelled, by id. */
  cancels: number[];
  /** The text that followed each run's message on a line of its own (its input), by id. */
  inputs: Map<number, string>;
  /** Ends run `id` with output `output`. */
  answer(id: number, output: unknown): void;
  close(): Promise<void>;
}

/** Answers each run at once, its output 1. */
function answerEach(socket: Socket, msg: { id: number }): void {
  writeMessage(socket, { t: "result", id: msg.id, result: { ok: true, output: 1, logs: [], artifacts: [] } });
}

/** A peer that says it queued every run and never runs it: a JavaScript host an exploit took over, say. */
function queuingPeer(): Promise<Peer> {
  return peer((socket, msg) => writeMessage(socket, { t: "queued", id: msg.id }));
}

/**
 * A JavaScript host that runs `js.size` at once, up to `js.limit`, and answers when the test says; it says it holds
 * codes and takes inputs on their own line where `codeRefs` and `rawInput` say so.
 */
async function peer(
  onRun: (socket: Socket, msg: { id: number }) => void = () => undefined,
  {
    js,
    codeRefs,
    rawInput,
    processSteps,
  }: { js?: JsPool; codeRefs?: boolean; rawInput?: boolean; processSteps?: number } = {},
): Promise<Peer> {
  const dir = await mkdtemp(join(tmpdir(), "wf-runner-connection-"));
  const path = join(dir, "peer.sock");
  const runs: number[] = [];
  const cancels: number[] = [];
  const messages: ClientMessage[] = [];
  const inputs = new Map<number, string>();
  let served: Socket | undefined;
  const server: Server = createServer((socket) => {
    served = socket;
    readMessages<ClientMessage>(socket, (msg, follows) => {
      messages.push(msg);
      if (msg.t === "run" && follows !== undefined) inputs.set(msg.id, follows);
      if (msg.t === "cancel") cancels.push(msg.id);
      if (msg.t !== "run") return;
      runs.push(msg.id);
      onRun(socket, msg);
    });
    writeMessage(socket, {
      t: "ready",
      isolation: refusedIsolation("a test peer"),
      ...(js ? { js } : {}),
      ...(codeRefs === undefined ? {} : { codeRefs }),
      ...(rawInput === undefined ? {} : { rawInput }),
      ...(processSteps === undefined ? {} : { processSteps }),
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const client = createConnection(path);
  return {
    client,
    messages,
    runs,
    cancels,
    inputs,
    answer: (id, output) =>
      writeMessage(served!, { t: "result", id, result: { ok: true, output, logs: [], artifacts: [] } }),
    close: async () => {
      client.destroy();
      await new Promise((resolve) => server.close(resolve));
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A client's socket to a runner's end (serveConnection) whose runs `run` answers; closed after the test. */
async function servedRunner(run: Served["run"]): Promise<Socket> {
  const dir = await mkdtemp(join(tmpdir(), "wf-runner-served-"));
  const path = join(dir, "runner.sock");
  const served: Served = { isolation: refusedIsolation("a test runner"), jsPool: { size: 8, limit: 16 }, run };
  const server = createServer((socket) => serveConnection(socket, served));
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const client = createConnection(path);
  close = async () => {
    client.destroy();
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  };
  return client;
}

/** Closes the test's peer. */
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

describe("a runner connection's stuck clock", () => {
  it("is not stopped by a JavaScript host that says it queued a run: the run fails as timed out, its host kept", async () => {
    const peer = await queuingPeer();
    close = peer.close;
    const stuck: string[] = [];
    const conn = new RunnerConnection(peer.client, (why) => stuck.push(why));
    const result = await conn.run(step("javascript", "return 1", { timeoutMs: 100 }), {} as never);
    expect(result).toMatchObject({ ok: false, timedOut: true, error: "timed out after 0.1 s" });
    await waitFor(() => peer.cancels.length === 1, { what: "the run's cancel" });
    expect(stuck).toEqual([]);
  });

  it("keeps a JavaScript run past its grace on its owner's slots until its host answers it", async () => {
    const host = await peer(undefined, { js: { size: 1, limit: 2 } });
    close = host.close;
    const stuck: string[] = [];
    const conn = new RunnerConnection(host.client, (why) => stuck.push(why));
    // 64 slots, 128 past a wait: a free owner holds 64 at once, here one run of 64 slots' size (16 MB of input).
    const big = { input: "x".repeat(16 * 1024 * 1024 - 4096) };
    const over = await conn.run(step("javascript", "return 1", { timeoutMs: 100, owner: "a", ...big }), {} as never);
    expect(over).toMatchObject({ ok: false, timedOut: true });
    // Its isolate is still held at the host: the owner's next run waits for it here, another owner's does not.
    const next = conn.run(step("javascript", "return 2", { owner: "a" }), {} as never);
    const other = conn.run(step("javascript", "return 3", { owner: "b" }), {} as never);
    await waitFor(() => host.runs.length === 2, { what: "the other owner's run at the host" });
    host.answer(host.runs[1]!, 3);
    expect(await other).toMatchObject({ ok: true, output: 3 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(host.runs).toHaveLength(2);
    // The host answers the stuck run at last: the owner's slots are free again.
    host.answer(host.runs[0]!, 1);
    await waitFor(() => host.runs.length === 3, { what: "the owner's next run at the host" });
    host.answer(host.runs[2]!, 2);
    expect(await next).toMatchObject({ ok: true, output: 2 });
    expect(stuck).toEqual([]);
  });

  it("reports a JavaScript host stuck once more than half its isolates are, of more than one owner", async () => {
    const peer = await queuingPeer();
    close = peer.close;
    const stuck: string[] = [];
    const conn = new RunnerConnection(peer.client, (why) => stuck.push(why));
    // A free owner's share of the host's isolates (2 to 8 at once, 4 times that at most): all stuck, host kept.
    const share = JS_SHARES.share("free");
    const run = (owner: string): Promise<RunResult> =>
      conn.run(step("javascript", "return 1", { timeoutMs: 100, owner }), {} as never);
    await Promise.all(Array.from({ length: share }, () => run("a")));
    expect(stuck).toEqual([]);
    // Other owners' runs stuck too, past half the isolates.
    const others = JS_SHARES.limit / 2 - share + 1;
    await Promise.all(Array.from({ length: others }, (_, i) => run(`b${i}`)));
    expect(stuck).toEqual([
      `${share + others} of its ${JS_SHARES.limit} isolates, of ${others + 1} owners, were still going 5 s after their runs' timeouts`,
    ]);
  });

  it("starts a JavaScript run's clock only once its host must have started it, behind its owner's runs", async () => {
    // One isolate, so one run of a free owner at a time: the second waits at the host for the first.
    const host = await peer(undefined, { js: { size: 1, limit: 2 } });
    close = host.close;
    const stuck: string[] = [];
    const conn = new RunnerConnection(host.client, (why) => stuck.push(why));
    const first = conn.run(step("javascript", "return 1", { timeoutMs: 100, owner: "a" }), {} as never);
    const second = conn.run(step("javascript", "return 2", { timeoutMs: 100, owner: "a" }), {} as never);
    await waitFor(() => host.runs.length === 2, { what: "both runs to reach the host" });
    // Within the first run's 100 ms and 5 s of grace; the second's clock starts now.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    host.answer(host.runs[0]!, 1);
    expect(await first).toMatchObject({ ok: true, output: 1 });
    // Past the 5.1 s a clock started as the second was sent would have given it.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    host.answer(host.runs[1]!, 2);
    expect(await second).toMatchObject({ ok: true, output: 2 });
    expect(stuck).toEqual([]);
  });

  it("starts the clock of an owner's second run only once its host must have started it, the reserve kept free", async () => {
    // Four isolates, the last for an owner holding none: two Team owners (a share of 3 each) hold 3 of them together.
    const host = await peer(undefined, { js: { size: 2, limit: 4 } });
    close = host.close;
    const stuck: string[] = [];
    const conn = new RunnerConnection(host.client, (why) => stuck.push(why));
    const run = (owner: string, output: number) =>
      conn.run(step("javascript", `return ${output}`, { timeoutMs: 100, owner, ownerPlan: "team" }), {} as never);
    const runs = [run("a", 1), run("b", 2), run("a", 3), run("b", 4)];
    await waitFor(() => host.runs.length === 4, { what: "the runs to reach the host" });
    // Within the 100 ms and 5 s of grace of the three its host started; b's second waits for the reserve to stay free.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    for (const id of host.runs.slice(0, 3)) host.answer(id, 0);
    // Past the 5.1 s a clock started as b's second was sent would have given it.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    host.answer(host.runs[3]!, 4);
    expect(await Promise.all(runs)).toMatchObject([0, 0, 0, 4].map((output) => ({ ok: true, output })));
    expect(stuck).toEqual([]);
  });

  it("gives up every JavaScript run of a host that ends none within the longest timeout and 5 s", async () => {
    // Past the host's limit no run has a clock of its own: the host holds some back whoever sent them.
    const host = await peer(undefined, { js: { size: 1, limit: 1 } });
    close = host.close;
    const stuck: string[] = [];
    const conn = new RunnerConnection(host.client, (why) => stuck.push(why));
    const started = performance.now();
    const results = await Promise.all(
      ["a", "b", "c"].map((owner, i) =>
        conn.run(step("javascript", "return 1", { timeoutMs: 100 * (i + 1), owner }), {} as never),
      ),
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(5_300);
    // The first had the host's one isolate, and a clock of its own; the others waited for it.
    expect(results[0]).toMatchObject({ ok: false, timedOut: true, error: "timed out after 0.1 s" });
    // The first, past its grace, still holds its isolate there: only the host's silence has it killed.
    const why = "it ended none of its 3 JavaScript runs within the longest of their timeouts and 5 s";
    for (const result of results.slice(1))
      expect(result).toMatchObject({ ok: false, timedOut: false, error: `the JavaScript host is stuck: ${why}` });
    expect(stuck).toEqual([why]);
    // Each was cancelled at the host.
    await waitFor(() => host.cancels.length === 3, { what: "the runs' cancels" });
  });

  it("is stopped while a sandbox runner says the run waits for its owner's turn", async () => {
    const peer = await queuingPeer();
    close = peer.close;
    const stuck: string[] = [];
    const conn = new RunnerConnection(peer.client, (why) => stuck.push(why));
    const controller = new AbortController();
    const result = conn.run(step("bash", "echo 1", { timeoutMs: 100 }), {} as never, controller.signal);
    // Past the timeout and the grace (5.1 s) it is still waiting, and nobody called the runner stuck.
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(stuck).toEqual([]);
    controller.abort();
    expect(await result).toMatchObject({ ok: false, error: "aborted" });
  });
});

describe("a runner connection's JavaScript runs at once", () => {
  it("sends a host as many JavaScript runs at once as their requests' size allows", async () => {
    const host = await peer();
    close = host.close;
    const conn = new RunnerConnection(host.client, () => undefined);
    // Each request weighs two of the 64 slots; one owner may hold all 64, however long its runs wait.
    const input = "x".repeat(300 * 1024);
    const runs = Array.from({ length: 40 }, () =>
      conn.run(step("javascript", "return 1", { input, owner: "a" }), {} as never),
    );
    await waitFor(() => host.runs.length === 32, { what: "32 runs at the host" });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(host.runs).toHaveLength(32);
    host.answer(host.runs[0]!, 1);
    expect(await runs[0]).toMatchObject({ ok: true, output: 1 });
    await waitFor(() => host.runs.length === 33, { what: "the next run at the host" });
    conn.fail(new Error("the test is over"));
    for (const result of await Promise.all(runs.slice(1)))
      expect(result).toMatchObject({ ok: false, error: "the test is over" });
  });
});

describe("a runner connection's process runs at once", () => {
  /** The characters of each run's message and input, by id, measured once. */
  const sizes = new Map<number, number>();
  /** Each run the peer holds: its owner, and the characters of its message and input. */
  function held(host: Peer, answered: ReadonlySet<number>): { owner: string; chars: number }[] {
    return host.messages.flatMap((m) => {
      if (m.t !== "run" || answered.has(m.id)) return [];
      let size = sizes.get(m.id);
      if (size === undefined) sizes.set(m.id, (size = JSON.stringify(m).length + (host.inputs.get(m.id)?.length ?? 0)));
      return [{ owner: m.req.owner ?? "", chars: size }];
    });
  }
  const chars = (runs: { chars: number }[]): number => runs.reduce((sum, run) => sum + run.chars, 0);

  it("sends a runner one owner's process runs as its process steps and their size allow, the rest in turn as runs end", async () => {
    const host = await peer(undefined, { rawInput: true });
    close = host.close;
    const conn = new RunnerConnection(host.client, () => undefined);
    // A foreach's Python steps, each given a 256 KB output as its input: two slots each of the 64 a runner of the
    // default 32 process steps has. Before, all 200 (50 MB) were written to the runner at once.
    const input = "x".repeat(256 * 1024);
    const flood = Array.from({ length: 200 }, (_, i) =>
      conn.run(step("python", "print(1)", { input, owner: "a", ownerPlan: "free" }), {} as never).then((r) => [i, r]),
    );
    await waitFor(() => host.runs.length === 32, { what: "32 runs at the runner" });
    // Past the wait that lets a run go beyond the size: the owner holds its share, and nothing more goes.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const answered = new Set<number>();
    const at = held(host, answered);
    expect(at).toHaveLength(32);
    console.log(`[process runs] one owner's 200 runs: 32 (${(chars(at) / 2 ** 20).toFixed(1)} MiB) at the runner`);
    expect(chars(at)).toBeLessThanOrEqual(64 * 256 * 1024);

    // Another owner's run is sent while the first owner's 168 wait.
    const other = conn.run(step("bash", "echo 1", { owner: "b", ownerPlan: "free" }), {} as never);
    await waitFor(() => held(host, answered).some((run) => run.owner === "b"), { what: "b's run at the runner" });
    expect(host.runs).toHaveLength(33);

    // As runs end, the next go, never more at once than the bound; every run completes.
    let most = 0;
    while (answered.size < 201) {
      most = Math.max(most, chars(held(host, answered)));
      const next = host.runs.find((id) => !answered.has(id));
      if (next === undefined) {
        await waitFor(() => host.runs.length > answered.size, { what: "the next run at the runner" });
        continue;
      }
      answered.add(next);
      host.answer(next, 1);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(most).toBeLessThanOrEqual(64 * 256 * 1024);
    expect(await other).toMatchObject({ ok: true, output: 1 });
    for (const [, result] of await Promise.all(flood)) expect(result).toMatchObject({ ok: true, output: 1 });
  });

  it("takes the process steps a runner says it runs at once, and lets other owners' runs past one owner's", async () => {
    const host = await peer(undefined, { processSteps: 2 });
    close = host.close;
    const conn = new RunnerConnection(host.client, () => undefined);
    const run = (owner: string) => conn.run(step("python", "print(1)", { owner, ownerPlan: "free" }), {} as never);
    // Four slots, which one owner may hold: a's first four go, its other six wait here.
    const flood = Array.from({ length: 10 }, () => run("a"));
    await waitFor(() => host.runs.length === 4, { what: "4 runs at the runner" });
    const others = [run("b"), run("c")];
    // Runs that waited may take up to 8 slots, a free owner 4 of them: b's and c's go, none more of a's.
    await waitFor(() => host.runs.length === 6, { what: "b's and c's runs at the runner" });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const owners = (): (string | undefined)[] => host.messages.flatMap((m) => (m.t === "run" ? [m.req.owner] : []));
    expect(owners()).toEqual(["a", "a", "a", "a", "b", "c"]);
    let answered = 0;
    while (answered < 12) {
      await waitFor(() => host.runs.length > answered, { what: "the next run at the runner" });
      host.answer(host.runs[answered++]!, 1);
    }
    for (const result of await Promise.all([...flood, ...others])) expect(result).toMatchObject({ ok: true });
  });
});

describe("a runner connection's codes", () => {
  it("sends a code once to a runner that holds codes, and its runs name it", async () => {
    const host = await peer(answerEach, { codeRefs: true });
    close = host.close;
    const conn = new RunnerConnection(host.client, () => undefined);
    await conn.ready;
    const code = `return input + 1 // ${"x".repeat(10_000)}`;
    for (let i = 0; i < 3; i++) expect(await conn.run(step("python", code), {} as never)).toMatchObject({ ok: true });
    await Promise.all(Array.from({ length: 5 }, () => conn.run(step("javascript", code), {} as never)));
    const sent = host.messages.filter((m) => m.t === "code");
    expect(sent).toEqual([{ t: "code", codeId: expect.any(Number) as number, code }]);
    const runs = host.messages.filter((m) => m.t === "run");
    expect(runs).toHaveLength(8);
    for (const run of runs) {
      expect(run.codeId).toBe(sent[0]!.codeId);
      expect(run.req.code).toBeUndefined();
    }
  });

  it("sends each run its code where the runner does not say it holds codes", async () => {
    const host = await peer(answerEach);
    close = host.close;
    const conn = new RunnerConnection(host.client, () => undefined);
    await conn.ready;
    for (let i = 0; i < 2; i++) await conn.run(step("python", "print(1)"), {} as never);
    expect(host.messages.filter((m) => m.t === "code")).toEqual([]);
    for (const run of host.messages.filter((m) => m.t === "run")) {
      expect(run.req.code).toBe("print(1)");
      expect(run.codeId).toBeUndefined();
    }
  });

  it("runs the right code through a real runner's end, past the codes it holds at once and back", async () => {
    // A runner that answers each run with the code it ran.
    const client = await servedRunner((req) =>
      Promise.resolve({ ok: true, output: req.code, logs: [], artifacts: [] }),
    );
    const conn = new RunnerConnection(client, () => undefined);
    await conn.ready;
    const codes = Array.from({ length: SENT_MAX_CODES + 44 }, (_, i) => `print(${i})`);
    for (const code of codes) expect(await conn.run(step("python", code), {} as never)).toEqual(ok(code));
    // The first codes were forgotten by now: they are sent again.
    for (const code of codes.slice(0, 3)) expect(await conn.run(step("python", code), {} as never)).toEqual(ok(code));
    // Many at once, some held and some not.
    const again = codes.filter((_, i) => i % 7 === 0);
    const results = await Promise.all(again.map((code) => conn.run(step("python", code), {} as never)));
    expect(results).toEqual(again.map(ok));
  });
});

/** A result whose output came on a line of its own (the runner's end sends it so), with that text beside it. */
function ok(output: string): RunResult {
  return { ok: true, output, outputJson: JSON.stringify(output), logs: [], artifacts: [] };
}

describe("a runner connection's inputs and outputs as JSON text", () => {
  const input = { s: "a\nb\u2028c ünï 🚀", list: [1, 2.5, null] };
  /** Answers each run with `text` as its output, on a line of its own. */
  const answerWith =
    (text: string) =>
    (socket: Socket, msg: { id: number }): void => {
      const line = messageLine({
        t: "result",
        id: msg.id,
        result: { ok: true, output: undefined, logs: [], artifacts: [] },
        follows: "output",
      });
      writeFollowed(socket, line, text);
    };
  it("fails the call of a run whose input has no JSON, leaving nothing counted busy", async () => {
    const host = await peer(answerEach, { rawInput: true });
    close = host.close;
    const conn = new RunnerConnection(host.client, () => undefined);
    await conn.ready;
    await expect(conn.run(step("javascript", "return 1", { input: { n: 1n } }), {} as never)).rejects.toThrow(/BigInt/);
    expect(conn.busy).toBe(0);
    expect(await conn.run(step("javascript", "return 1", { input }), {} as never)).toMatchObject({ ok: true });
    expect(host.runs).toHaveLength(1);
  });

  it("sends a run's input on a line of its own to a runner that takes it so, and in the run to one that does not", async () => {
    const raw = await peer(answerEach, { rawInput: true });
    const conn = new RunnerConnection(raw.client, () => undefined);
    expect(await conn.run(step("javascript", "return 1", { input }), {} as never)).toMatchObject({ ok: true });
    const [sent] = raw.messages.filter((m) => m.t === "run");
    expect(sent).toMatchObject({ follows: "input", rawOutput: true });
    expect(sent!.t === "run" && sent!.req.input).toBeUndefined();
    expect(raw.inputs.get(sent!.id)).toBe(JSON.stringify(input));
    await raw.close();

    const old = await peer(answerEach);
    close = old.close;
    const toOld = new RunnerConnection(old.client, () => undefined);
    expect(await toOld.run(step("javascript", "return 1", { input }), {} as never)).toMatchObject({ ok: true });
    const [run] = old.messages.filter((m) => m.t === "run");
    expect(run).not.toHaveProperty("follows");
    expect(run!.t === "run" && run!.req.input).toEqual(input);
    expect(old.inputs.size).toBe(0);
  });

  it("parses an output that comes on a line of its own, keeping its text, and fails a run whose output there is not JSON", async () => {
    const good = await peer(answerWith(JSON.stringify(input)), { rawInput: true });
    const conn = new RunnerConnection(good.client, () => undefined);
    expect(await conn.run(step("javascript", "return input"), {} as never)).toEqual({
      ok: true,
      output: input,
      outputJson: JSON.stringify(input),
      logs: [],
      artifacts: [],
    });
    await good.close();

    const bad = await peer(answerWith('{"cut":'), { rawInput: true });
    close = bad.close;
    const toBad = new RunnerConnection(bad.client, () => undefined);
    expect(await toBad.run(step("javascript", "return input"), {} as never)).toMatchObject({
      ok: false,
      error: "the sandbox runner answered an output that is not JSON",
    });
  });

  it("sends an input's text that holds a line break in the run, as its value", async () => {
    const host = await peer(answerEach, { rawInput: true });
    close = host.close;
    const relay = new RunnerConnection(host.client, () => undefined, true);
    const req = step("javascript", "return 1", { input: new JsonText('{"a":\n[1]}') });
    expect(await relay.run(req, {} as never)).toMatchObject({ ok: true });
    const [run] = host.messages.filter((m) => m.t === "run");
    expect(run).not.toHaveProperty("follows");
    expect(run!.t === "run" && run!.req.input).toEqual({ a: [1] });
  });

  it("passes an output's text on as it came where it relays a runner's runs", async () => {
    const host = await peer(answerWith('{"a": [1, 2]}'), { rawInput: true });
    close = host.close;
    const relay = new RunnerConnection(host.client, () => undefined, true);
    const result = await relay.run(step("javascript", "return input"), {} as never);
    const output = result.ok ? result.output : undefined;
    expect(output).toBeInstanceOf(JsonText);
    expect((output as JsonText).text).toBe('{"a": [1, 2]}');
  });
});

describe("a runner's results to its client", () => {
  /** Sends `msg` to a runner that answers each run with `output`, and returns its result and the text after it. */
  async function ask(
    output: unknown,
    msg: ClientMessage,
  ): Promise<{ result: Extract<RunnerMessage, { t: "result" }>; follows: string | undefined }> {
    const client = await servedRunner(() => Promise.resolve({ ok: true, output, logs: [], artifacts: [] }));
    const answered = new Promise<{ result: Extract<RunnerMessage, { t: "result" }>; follows: string | undefined }>(
      (resolve) =>
        readMessages<RunnerMessage>(client, (m, follows) => {
          if (m.t === "result") resolve({ result: m, follows });
        }),
    );
    writeMessage(client, msg);
    return answered;
  }
  const run = (extra: Partial<Extract<ClientMessage, { t: "run" }>>): ClientMessage => ({
    t: "run",
    id: 1,
    req: step("python", "print(1)"),
    limits: {} as never,
    live: false,
    ...extra,
  });

  it("sends the output on a line of its own to a client that takes it so, and in the result to one that does not", async () => {
    const raw = await ask({ b: [2] }, run({ rawOutput: true }));
    expect(raw).toEqual({
      result: { t: "result", id: 1, result: { ok: true, logs: [], artifacts: [] }, follows: "output" },
      follows: '{"b":[2]}',
    });
    await close?.();
    const embedded = await ask({ b: [2] }, run({}));
    expect(embedded).toEqual({
      result: { t: "result", id: 1, result: { ok: true, output: { b: [2] }, logs: [], artifacts: [] } },
      follows: undefined,
    });
  });

  it("sends an output's text that holds a line break in the result, as its value", async () => {
    const r = await ask(new JsonText('{"a":\n1}'), run({ rawOutput: true }));
    expect(r.follows).toBeUndefined();
    expect(r.result.result).toEqual({ ok: true, output: { a: 1 }, logs: [], artifacts: [] });
  });

  it("takes a run's input from the line after it", async () => {
    const client = await servedRunner((req) =>
      Promise.resolve({ ok: true, output: req.input, logs: [], artifacts: [] }),
    );
    const conn = new RunnerConnection(client, () => undefined);
    const input = { text: "line one\nline two", n: 3 };
    expect(await conn.run(step("python", "print(1)", { input }), {} as never)).toMatchObject({
      ok: true,
      output: input,
    });
  });
});
