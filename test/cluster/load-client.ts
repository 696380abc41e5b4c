import type { ChaosWorkflows } from "./workflows";
import type { Fleet } from "./fleet";

/** An execution that got its 202, and what started it. */
export interface Started {
  executionId: string;
  source: "open_api" | "webhook" | "console";
  workflow: string;
  at: number;
}

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * Answers 503 are expected this long after a nats-server went down or came back: its streams
 * elect new leaders, and the restarted one catches up. On two cores shared by three servers and
 * the fleet, a list read was seen timing out 15.4 s after a restart.
 */
const LEADER_MOVE_MS = 30_000;

/**
 * A client of the fleet's edges, as external systems and a person in the console are: each
 * request goes to a live edge, and to another one when its edge dies under it (a request that
 * got no answer started nothing the test counts). Every answer's status is counted; a 5xx other
 * than a 503 while the cluster moved leaders is kept as unexpected.
 */
export class LoadClient {
  readonly answers: Record<number, number> = {};
  readonly unexpected5xx: string[] = [];
  private readonly leaderMoves: number[] = [];

  private constructor(
    private readonly fleet: Fleet,
    private readonly apiKey: string,
    private readonly session: { cookie: string; csrf: string },
  ) {}

  static async login(fleet: Fleet, who: { email: string; password: string; apiKey: string }): Promise<LoadClient> {
    const anon = new LoadClient(fleet, who.apiKey, { cookie: "", csrf: "" });
    const r = await anon.raw("POST", "/api/console/login", { body: { email: who.email, password: who.password } });
    if (r.answer.status !== 200) throw new Error(`login: ${r.answer.status} ${JSON.stringify(r.answer.body)}`);
    const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0]!;
    return new LoadClient(fleet, who.apiKey, { cookie, csrf: r.answer.body.csrfToken as string });
  }

  /** Called when a nats-server is killed or restarted. */
  quorumNote(_what: string): void {
    this.leaderMoves.push(Date.now());
  }

  async createWorkflow(yaml: string): Promise<string> {
    const r = await this.console("POST", "/api/console/workflows", { yaml });
    if (r.status !== 201) throw new Error(`create workflow: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.id as string;
  }

  async createWebhook(workflowId: string): Promise<string> {
    const r = await this.console("POST", "/api/webhooks", { workflowId, name: "chaos" });
    if (r.status !== 201) throw new Error(`create webhook: ${r.status} ${JSON.stringify(r.body)}`);
    return new URL(r.body.triggerUrl as string, "http://edge").pathname;
  }

  /**
   * Starts executions round the four kinds every 250 ms, without waiting for one to answer
   * before the next; `stop` ends the load and waits for the requests in flight.
   */
  runLoad(flows: ChaosWorkflows, started: Started[]): () => Promise<void> {
    const kinds: (() => Promise<Started | null>)[] = [
      () =>
        this.start("open_api", flows.codeMix, () =>
          this.v1("POST", `/api/v1/workflows/${flows.codeMix}/executions`, {}),
        ),
      () =>
        this.start("webhook", flows.waiter, () => this.call("POST", flows.webhookPath, { body: { from: "chaos" } })),
      () =>
        this.start("console", flows.retrier, () =>
          this.console("POST", `/api/console/workflows/${flows.retrier}/executions`, {}),
        ),
      () =>
        this.start("open_api", flows.approval, () =>
          this.v1("POST", `/api/v1/workflows/${flows.approval}/executions`, {}),
        ),
    ];
    const inFlight = new Set<Promise<void>>();
    let n = 0;
    const timer = setInterval(() => {
      const p = kinds[n++ % kinds.length]!().then((s) => {
        if (s) started.push(s);
      });
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }, 250);
    return async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
    };
  }

  /** Approves every pending approval, over and over, until `stop`. */
  approveWhilePending(): () => Promise<void> {
    let running = true;
    const loop = (async () => {
      while (running) {
        const r = await this.v1("GET", "/api/v1/approvals?status=PENDING&size=100").catch(() => null);
        for (const a of (r?.status === 200 ? (r.body.approvals as { id: string }[]) : []) ?? []) {
          await this.v1("POST", `/api/v1/approvals/${a.id}/approve`, {}).catch(() => null);
        }
        await new Promise((res) => setTimeout(res, 300));
      }
    })();
    return async () => {
      running = false;
      await loop;
    };
  }

  /**
   * Executions of the owner not ended yet, by status, by the API's lists: those the test tracks,
   * and those whose 202 never reached it (an edge killed as it answered, the request sent again
   * elsewhere), or whose start failed.
   */
  async unfinished(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const status of ["PENDING", "RUNNING", "AWAITING_APPROVAL"]) {
      const r = await this.v1("GET", `/api/v1/executions?status=${status}&size=1`);
      if (r.status !== 200) throw new Error(`executions: ${r.status} ${JSON.stringify(r.body)}`);
      if ((r.body.total as number) > 0) out[status] = r.body.total as number;
    }
    return out;
  }

  /** Each live edge's totals of executions not ended: edges list from views of their own. */
  async unfinishedPerEdge(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [i, base] of this.fleet.edges().entries()) {
      for (const status of ["PENDING", "RUNNING", "AWAITING_APPROVAL"]) {
        const res = await fetch(`${base}/api/v1/executions?status=${status}&size=1`, {
          headers: { "x-api-key": this.apiKey },
          signal: AbortSignal.timeout(15_000),
        });
        const total = res.ok ? ((await res.json()) as { total: number }).total : -res.status;
        if (total !== 0) out[`edge${i}:${status}`] = total;
      }
    }
    return out;
  }

  /** The ids of executions not ended (of one workflow, given its id), as the API lists them. */
  async unfinishedIds(workflowId?: string): Promise<string[]> {
    const ids: string[] = [];
    for (const status of ["PENDING", "RUNNING", "AWAITING_APPROVAL"]) {
      const r = await this.v1(
        "GET",
        `/api/v1/executions?status=${status}&size=100${workflowId ? `&workflowId=${workflowId}` : ""}`,
      );
      if (r.status === 200) ids.push(...(r.body.items as { id: string }[]).map((e) => e.id));
    }
    return ids;
  }

  /** The approvals still pending, as the API lists them. */
  async pendingApprovals(): Promise<{ id: string; executionId: string; stepName: string; createdAt: number }[]> {
    const r = await this.v1("GET", "/api/v1/approvals?status=PENDING&size=100");
    if (r.status !== 200) throw new Error(`approvals: ${r.status}`);
    return r.body.approvals as { id: string; executionId: string; stepName: string; createdAt: number }[];
  }

  /** The chained workflow's executions: one per completed `waiter`, every one ended. */
  async chainedEndings(
    flows: ChaosWorkflows,
  ): Promise<{ runs: number; completed: number; open: number; waitersCompleted: number }> {
    const count = async (workflowId: string, status?: string) => {
      const r = await this.v1(
        "GET",
        `/api/v1/executions?workflowId=${workflowId}&size=1${status ? `&status=${status}` : ""}`,
      );
      if (r.status !== 200) throw new Error(`executions: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.total as number;
    };
    const [runs, completed, waitersCompleted] = await Promise.all([
      count(flows.chained),
      count(flows.chained, "COMPLETED"),
      count(flows.waiter, "COMPLETED"),
    ]);
    const ended = await Promise.all(["FAILED", "CANCELLED", "INTERRUPTED"].map((s) => count(flows.chained, s)));
    return { runs, completed, open: runs - completed - ended.reduce((a, b) => a + b, 0), waitersCompleted };
  }

  private async start(
    source: Started["source"],
    workflow: string,
    send: () => Promise<Answer>,
  ): Promise<Started | null> {
    const at = Date.now();
    const r = await send().catch(() => null);
    return r?.status === 202 ? { executionId: r.body.executionId as string, source, workflow, at } : null;
  }

  private v1(method: string, path: string, body?: unknown): Promise<Answer> {
    return this.call(method, path, { body, headers: { "x-api-key": this.apiKey } });
  }

  private console(method: string, path: string, body?: unknown): Promise<Answer> {
    return this.call(method, path, {
      body,
      headers: { cookie: this.session.cookie, "x-csrf-token": this.session.csrf },
    });
  }

  private async call(
    method: string,
    path: string,
    opts: { body?: unknown; headers?: Record<string, string> },
  ): Promise<Answer> {
    return (await this.raw(method, path, opts)).answer;
  }

  /** Tries the live edges for up to 20 s: an edge killed mid-request gives no answer at all. */
  private async raw(
    method: string,
    path: string,
    opts: { body?: unknown; headers?: Record<string, string> },
  ): Promise<{ answer: Answer; headers: Headers }> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const edges = this.fleet.edges();
      const base = edges[Math.floor(Math.random() * edges.length)];
      try {
        if (!base) throw new Error("no edge up");
        const res = await fetch(`${base}${path}`, {
          method,
          headers: { ...(opts.body !== undefined ? { "content-type": "application/json" } : {}), ...opts.headers },
          ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
          signal: AbortSignal.timeout(15_000),
        });
        const text = await res.text();
        this.answers[res.status] = (this.answers[res.status] ?? 0) + 1;
        if (
          res.status >= 500 &&
          !(res.status === 503 && this.leaderMoves.some((t) => Date.now() - t < LEADER_MOVE_MS))
        ) {
          const since =
            this.leaderMoves.length === 0
              ? "no leader move yet"
              : `${Date.now() - this.leaderMoves.at(-1)!} ms after the last leader move`;
          this.unexpected5xx.push(`${method} ${path}: ${res.status} (${since}) ${text.slice(0, 300)}`);
        }
        return {
          answer: { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} },
          headers: res.headers,
        };
      } catch (err) {
        // Only a request that may not have arrived is tried again: a POST that timed out may have started something.
        if ((err as Error).name === "TimeoutError" || Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }
}
