import { describe, expect, it } from "vitest";
import type { WorkflowRecord } from "@wf/shared/store";
import { account, call, consoleAccount, ended, startV1, storeWorkflow, useApi, type ApiEnv } from "./support";

/** Every start on a user's behalf asks for the right the v1 start asks for (docs/api.md, Who may do what). */
const api = useApi({ runtime: true });

const SHARED_YAML = `
name: shared
steps:
  - { name: one, type: transform, output: 1 }
  - { name: two, type: transform, output: "{{ steps.one.output + 1 }}" }
`;

/**
 * A workflow of `owner`'s own whose one step runs `target` as a sub-workflow, with retries it must not spend on a
 * refusal.
 */
function parentYaml(target: string): string {
  return `
name: parent
steps:
  - name: call
    type: workflow
    workflow: ${target}
    retry: { max_attempts: 3, initial_delay: 0.1 }
`;
}

async function share(env: ApiEnv, w: WorkflowRecord, userId: string, role: "viewer" | "editor"): Promise<void> {
  const current = (await env.platform.store.workflows.get(w.id))!;
  await env.platform.store.workflows.update({ ...current.value, sharedWith: { [userId]: role } }, current.version);
}

describe("sub-workflow steps", () => {
  it("fail, not retried, naming the workflow and the missing right, when the parent's owner only views it; run it as an editor", async () => {
    const owner = await account(api());
    const viewer = await account(api());
    const shared = await storeWorkflow(api(), owner.user.id, SHARED_YAML);
    await share(api(), shared, viewer.user.id, "viewer");
    const direct = await call(api(), "POST", `/api/v1/workflows/${shared.id}/executions`, {
      key: viewer.key,
      body: {},
    });
    expect([direct.statusCode, direct.json().code]).toEqual([403, "FORBIDDEN"]);

    const parent = await storeWorkflow(api(), viewer.user.id, parentYaml(shared.id));
    const refused = await ended(api(), viewer, await startV1(api(), viewer, parent));
    const message = `forbidden: starting workflow ${shared.id} needs the owner or editor role on it, and user ${viewer.user.id} is a viewer`;
    expect(refused).toMatchObject({ status: "FAILED", error: expect.stringContaining(message) });
    expect(refused.stepResults.call).toMatchObject({
      status: "FAILED",
      attempts: 1,
      error: `step \`call\`: ${message}`,
    });
    expect((await api().platform.store.executions.get(refused.id))!.value.steps.call!.childExecutionId).toBeNull();

    await share(api(), shared, viewer.user.id, "editor");
    const allowed = await ended(api(), viewer, await startV1(api(), viewer, parent));
    expect(allowed).toMatchObject({ status: "COMPLETED", stepResults: { call: { output: 2 } } });
  });
});

describe("reruns", () => {
  it("need the right to start the workflow as it stands: a child its parent's owner started as an editor is not rerun once they only view it", async () => {
    const owner = await account(api());
    const member = await consoleAccount(api());
    const shared = await storeWorkflow(api(), owner.user.id, SHARED_YAML);
    await share(api(), shared, member.user.id, "editor");
    const parent = await storeWorkflow(api(), member.user.id, parentYaml(shared.id));
    const parentId = await startV1(api(), member, parent);
    expect((await ended(api(), member, parentId)).status).toBe("COMPLETED");
    // The child belongs to the parent's owner, who sees it whatever their role on its workflow.
    const childId = (await api().platform.store.executions.get(parentId))!.value.steps.call!.childExecutionId!;
    const rerun = (query = "") =>
      call(api(), "POST", `/api/console/executions/${childId}/rerun${query}`, {
        body: { fromStep: "two" },
        headers: { cookie: member.cookie, "x-csrf-token": member.csrf },
      });
    expect((await rerun("?dryRun=true")).statusCode).toBe(200);

    await share(api(), shared, member.user.id, "viewer");
    const refused = await rerun();
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({
      code: "FORBIDDEN",
      error: `forbidden: starting workflow ${shared.id} needs the owner or editor role on it, and user ${member.user.id} is a viewer`,
    });
  });
});
