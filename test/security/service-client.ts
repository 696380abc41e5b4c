import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ArtifactList, ExecutionResult, ExecutionStatusView, StartExecutionResponse } from "@wf/shared/api";
import { newId } from "@wf/shared/execution";
import { waitFor } from "@wf/testing";
import { runCli, startCli } from "../cli/cli-process";

export interface ServiceUser {
  id: string;
  email: string;
  key: string;
}

export interface Artifact {
  step: string;
  path: string;
  content: string;
}

export interface ExecutionEvent {
  type: string;
  step?: string;
  data: Record<string, unknown>;
}

const TERMINAL = new Set(["COMPLETED", "FAILED", "CANCELLED", "INTERRUPTED"]);

/**
 * What a user of the service does: the operator's `wf` commands for accounts and workflows (on
 * the service's data directory, as `npm start` leaves it), the v1 API for running them.
 */
export class ServiceClient {
  constructor(
    private readonly edge: string,
    private readonly cliEnv: Record<string, string>,
    private readonly scratch: string,
  ) {}

  async createUser(): Promise<ServiceUser> {
    const email = `escape-${newId()}@example.com`;
    const user = await this.wf<{ id: string }>([
      "admin",
      "user",
      "create",
      "--email",
      email,
      "--password",
      "a long password",
      "--plan",
      "enterprise",
    ]);
    const scopes = "WORKFLOW_READ,WORKFLOW_EXECUTE,EXECUTION_READ,ARTIFACT_READ";
    const key = await this.wf<{ key: string }>(["admin", "key", "create", "--user", user.id, "--scopes", scopes]);
    return { id: user.id, email, key: key.key };
  }

  /** Imports a workflow (given as an object: JSON is YAML) for `user`; returns its id. */
  async importWorkflow(user: ServiceUser, definition: object): Promise<string> {
    const file = join(this.scratch, `workflow-${newId()}.yaml`);
    await writeFile(file, JSON.stringify(definition, null, 2));
    return (await this.wf<{ id: string }>(["workflow", "import", file, "--user", user.id])).id;
  }

  /** Starts an execution with its steps' logs kept (enableMonitoring). */
  async start(user: ServiceUser, workflowId: string, inputs: Record<string, unknown> = {}): Promise<string> {
    const res = await this.api(user, "POST", `/api/v1/workflows/${workflowId}/executions`, {
      inputs,
      enableMonitoring: true,
    });
    if (res.status !== 202) throw new Error(`start answered ${res.status}: ${await res.text()}`);
    return StartExecutionResponse.parse(await res.json()).executionId;
  }

  /** The execution's status view, once. */
  async status(user: ServiceUser, executionId: string): Promise<{ status: string }> {
    return ExecutionStatusView.parse(await (await this.api(user, "GET", `/api/v1/executions/${executionId}`)).json());
  }

  /** Polls the execution (bounded) until it ends, then reads its result. */
  async result(user: ServiceUser, executionId: string, timeoutMs = 40_000): Promise<ExecutionResult> {
    await waitFor(
      async () => {
        const view = ExecutionStatusView.parse(
          await (await this.api(user, "GET", `/api/v1/executions/${executionId}`)).json(),
        );
        return TERMINAL.has(view.status);
      },
      { timeoutMs, intervalMs: 100, what: `execution ${executionId} to end` },
    );
    return ExecutionResult.parse(
      await (await this.api(user, "GET", `/api/v1/executions/${executionId}/result`)).json(),
    );
  }

  async run(user: ServiceUser, workflowId: string, inputs: Record<string, unknown> = {}): Promise<ExecutionResult> {
    return this.result(user, await this.start(user, workflowId, inputs));
  }

  /** The execution's artifacts as the API lists them, each downloaded through its signed URL. */
  async artifacts(user: ServiceUser, executionId: string): Promise<Artifact[]> {
    const list = ArtifactList.parse(
      await (await this.api(user, "GET", `/api/v1/executions/${executionId}/artifacts`)).json(),
    );
    return Promise.all(
      list.artifacts.map(async (a) => {
        const res = await fetch(new URL(a.downloadUrl, this.edge));
        if (res.status !== 200) throw new Error(`download of ${a.path} answered ${res.status}`);
        return { step: a.stepName, path: a.path, content: await res.text() };
      }),
    );
  }

  /** The execution's events of `type`, replayed by `wf tail`, once `count` of them came. */
  async events(executionId: string, type: string, count: number): Promise<ExecutionEvent[]> {
    const tail = startCli(["tail", "--execution", executionId, "--since", "10m", "--json"], this.cliEnv);
    // Complete lines only: the last one may still be arriving.
    const matching = (): ExecutionEvent[] =>
      tail
        .stdout()
        .split("\n")
        .slice(0, -1)
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as ExecutionEvent)
        .filter((e) => e.type === type);
    try {
      await waitFor(() => matching().length >= count, { what: `${count} ${type} events of ${executionId}` });
      return matching();
    } finally {
      tail.signal("SIGINT");
      await tail.exited;
    }
  }

  async api(user: ServiceUser, method: string, path: string, body?: unknown): Promise<Response> {
    return fetch(new URL(path, this.edge), {
      method,
      headers: {
        authorization: `Bearer ${user.key}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  }

  private async wf<T>(args: string[]): Promise<T> {
    const r = await runCli([...args, "--json"], this.cliEnv);
    if (r.code !== 0) throw new Error(`wf ${args.join(" ")} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }
}
