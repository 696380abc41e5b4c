import { describe, expect, it } from "vitest";
import { WorkflowDetail, WorkflowList } from "@wf/shared/api";
import { account, call, SIMPLE_YAML, storeWorkflow, useApi } from "./support";

const api = useApi();

describe("GET /api/v1/workflows", () => {
  it("lists owned and shared workflows by name, paged, with the default and maximum sizes", async () => {
    const me = await account(api());
    const other = await account(api());
    const mine = await storeWorkflow(api(), me.user.id, SIMPLE_YAML, { name: "b-mine" });
    const shared = await storeWorkflow(api(), other.user.id, SIMPLE_YAML, {
      name: "a-shared",
      sharedWith: { [me.user.id]: "viewer" },
    });
    await storeWorkflow(api(), other.user.id, SIMPLE_YAML, { name: "hidden" });

    const r = await call(api(), "GET", "/api/v1/workflows", { key: me.key });
    expect(r.statusCode).toBe(200);
    const body = WorkflowList.parse(r.json());
    expect(body).toEqual({
      items: [
        {
          id: shared.id,
          name: "a-shared",
          ownerId: other.user.id,
          workflow: [expect.objectContaining({ name: "greet", type: "transform" })],
        },
        { id: mine.id, name: "b-mine", ownerId: me.user.id, workflow: [expect.objectContaining({ name: "greet" })] },
      ],
      total: 2,
      page: 1,
      size: 50,
    });
    const paged = (await call(api(), "GET", "/api/v1/workflows?page=2&size=1", { key: me.key })).json();
    expect(paged).toMatchObject({ items: [{ id: mine.id }], total: 2, page: 2, size: 1 });
    expect((await call(api(), "GET", "/api/v1/workflows?size=200", { key: me.key })).statusCode).toBe(200);
  });

  it.each([
    ["size=201", "size", "must be at most 200"],
    ["size=0", "size", "must be at least 1"],
    ["page=0", "page", "must be at least 1"],
    ["page=1.5", "page", "must be an integer"],
    ["size=ten", "size", "must be an integer"],
    ["sort=name", "sort", "unknown field"],
  ])("answers 400 naming the field for ?%s", async (query, field, message) => {
    const me = await account(api());
    const r = await call(api(), "GET", `/api/v1/workflows?${query}`, { key: me.key });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toMatchObject({
      error: expect.stringContaining(field),
      details: [{ in: "query", field, message }],
    });
  });
});

describe("GET /api/v1/workflows/{id}", () => {
  it("answers the definition, its variables and YAML, for the owner and for a sharee", async () => {
    const me = await account(api());
    const friend = await account(api());
    const w = await storeWorkflow(api(), me.user.id, SIMPLE_YAML, { sharedWith: { [friend.user.id]: "editor" } });
    for (const who of [me, friend]) {
      const r = await call(api(), "GET", `/api/v1/workflows/${w.id}`, { key: who.key });
      expect(r.statusCode).toBe(200);
      expect(WorkflowDetail.parse(r.json())).toEqual({
        id: w.id,
        name: "simple",
        ownerId: me.user.id,
        workflow: [expect.objectContaining({ name: "greet" })],
        variables: { who: { type: "string", default: "world" }, n: { type: "number", default: 1 } },
        yaml: SIMPLE_YAML,
        version: 1,
        createdAt: w.createdAt,
        updatedAt: w.updatedAt,
      });
    }
  });

  it("answers 404 for a workflow that does not exist or is not visible, never 403", async () => {
    const me = await account(api());
    const other = await account(api());
    const hidden = await storeWorkflow(api(), other.user.id, SIMPLE_YAML);
    for (const id of [hidden.id, "no-such-workflow"]) {
      const r = await call(api(), "GET", `/api/v1/workflows/${id}`, { key: me.key });
      expect(r.statusCode).toBe(404);
      expect(r.json()).toEqual({ error: expect.any(String), code: "NOT_FOUND" });
    }
  });
});
