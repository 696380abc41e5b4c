import { describe, expect, it } from "vitest";
import { ConsoleWorkflowDetail, ConsoleWorkflowList } from "@wf/shared/api";
import { createUser, MAX_SHAREES_PER_WORKFLOW } from "@wf/shared/auth";
import { newId } from "@wf/shared/execution";
import { testUserWithPassword } from "@wf/testing";
import { SIMPLE_YAML, storeWorkflow } from "../api/support";
import { consoleCall, consoleSession, statusAndCode, useConsole, type Answer, type Session } from "./support";

const env = useConsole({ runtime: false });

type Method = "GET" | "POST" | "PUT" | "DELETE";

/** consoleCall, DELETE included: the session cookie and (unless `csrf` is false) its token. */
async function send(
  session: Session | null,
  method: Method,
  path: string,
  opts: { body?: unknown; csrf?: boolean } = {},
): Promise<Answer> {
  if (method !== "DELETE") return consoleCall(env(), session, method, path, opts);
  const headers: Record<string, string> = {};
  if (session) headers.cookie = session.cookie;
  if (session && opts.csrf !== false) headers["x-csrf-token"] = session.csrf;
  const r = await fetch(`${env().base}${path}`, { method, headers });
  const text = await r.text();
  return { status: r.status, body: text === "" ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const yamlNamed = (name: string, output = "one") => `name: ${name}
steps:
  - name: first
    type: transform
    output: ${output}
`;

async function create(session: Session, yaml: string): Promise<ConsoleWorkflowDetail> {
  const r = await send(session, "POST", "/api/console/workflows", { body: { yaml } });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return ConsoleWorkflowDetail.parse(r.body);
}

type ConsoleWorkflowDetail = ReturnType<typeof ConsoleWorkflowDetail.parse>;

describe("console workflow routes: sessions, CSRF and visibility", () => {
  it("every route is 401 without a session, every change 403 without X-CSRF-Token, and another owner's workflow 404", async () => {
    const me = await consoleSession(env());
    const other = await consoleSession(env());
    const theirs = await storeWorkflow(env(), other.user.id, SIMPLE_YAML);
    const routes: [Method, string, unknown?][] = [
      ["GET", "/api/console/workflows"],
      ["POST", "/api/console/workflows", { yaml: SIMPLE_YAML }],
      ["GET", `/api/console/workflows/${theirs.id}`],
      ["PUT", `/api/console/workflows/${theirs.id}`, { yaml: SIMPLE_YAML }],
      ["DELETE", `/api/console/workflows/${theirs.id}`],
      ["GET", `/api/console/workflows/${theirs.id}/versions`],
      ["GET", `/api/console/workflows/${theirs.id}/versions/1`],
      ["GET", `/api/console/workflows/${theirs.id}/diff?from=1&to=1`],
      ["PUT", `/api/console/workflows/${theirs.id}/sharing`, { userEmail: me.user.email, role: "viewer" }],
      ["PUT", `/api/console/workflows/${theirs.id}/layout`, { positions: { first: { x: 1, y: 2 } } }],
    ];
    for (const [method, path, body] of routes) {
      const opts = body === undefined ? {} : { body };
      expect(statusAndCode(await send(null, method, path, opts)), `${method} ${path}`).toEqual([
        401,
        "SESSION_REQUIRED",
      ]);
      if (method !== "GET")
        expect(statusAndCode(await send(me, method, path, { ...opts, csrf: false })), `${method} ${path}`).toEqual([
          403,
          "CSRF_FAILED",
        ]);
      if (path.includes(theirs.id))
        expect(statusAndCode(await send(me, method, path, opts)), `${method} ${path}`).toEqual([404, "NOT_FOUND"]);
    }
    // Nothing of theirs changed, and it is not in my list.
    expect((await env().platform.store.workflows.get(theirs.id))?.value).toMatchObject({ version: 1, sharedWith: {} });
    const list = await send(me, "GET", "/api/console/workflows");
    expect((list.body.items as { id: string }[]).map((w) => w.id)).not.toContain(theirs.id);
  });

  it("bad bodies and queries are 400 naming the field", async () => {
    const me = await consoleSession(env());
    const w = await create(me, yamlNamed("bodies"));
    const cases: [Method, string, unknown, string][] = [
      ["POST", "/api/console/workflows", {}, "yaml"],
      ["POST", "/api/console/workflows", { yaml: 3 }, "yaml"],
      ["POST", "/api/console/workflows", { yaml: SIMPLE_YAML, extra: 1 }, ""],
      ["PUT", `/api/console/workflows/${w.id}`, { yaml: SIMPLE_YAML, baseVersion: "1" }, "baseVersion"],
      ["PUT", `/api/console/workflows/${w.id}/sharing`, { userEmail: "not-an-email", role: "viewer" }, "userEmail"],
      ["PUT", `/api/console/workflows/${w.id}/sharing`, { userEmail: me.user.email, role: "admin" }, "role"],
      ["PUT", `/api/console/workflows/${w.id}/sharing`, { userEmail: me.user.email, role: "viewer" }, "userEmail"],
      ["GET", "/api/console/workflows?limit=0", undefined, "limit"],
      ["GET", "/api/console/workflows?cursor=nonsense", undefined, "cursor"],
      ["GET", `/api/console/workflows/${w.id}/versions/abc`, undefined, "version"],
      ["GET", `/api/console/workflows/${w.id}/diff?from=1`, undefined, "to"],
    ];
    for (const [method, path, body, field] of cases) {
      const r = await send(me, method, path, body === undefined ? {} : { body });
      expect(statusAndCode(r), `${method} ${path} ${JSON.stringify(body)}`).toEqual([400, "VALIDATION_FAILED"]);
      if (field !== "") expect(r.body.details, `${method} ${path}`).toContainEqual(expect.objectContaining({ field }));
    }
  });
});

describe("creating, editing and versions", () => {
  it("a YAML mistake is 400 WORKFLOW_INVALID with its path, line and column", async () => {
    const me = await consoleSession(env());
    const yaml = "name: broken\nsteps:\n  - name: first\n    type: transform\n    output: x\n    colour: red\n";
    const r = await send(me, "POST", "/api/console/workflows", { body: { yaml } });
    expect(statusAndCode(r)).toEqual([400, "WORKFLOW_INVALID"]);
    const details = r.body.details as { path: string; line: number; column: number; message: string }[];
    expect(details.length).toBeGreaterThan(0);
    expect(details[0]).toEqual({
      path: expect.stringContaining("steps[0]"),
      line: 6,
      column: 5,
      message: expect.any(String),
    });
    const unparsable = await send(me, "POST", "/api/console/workflows", { body: { yaml: "name: [unclosed\n" } });
    expect(statusAndCode(unparsable)).toEqual([400, "WORKFLOW_INVALID"]);
    expect(unparsable.body.details).toEqual([
      expect.objectContaining({ line: expect.any(Number), column: expect.any(Number) }),
    ]);
  });

  it("creates, gets with YAML and role, updates to a new version, refuses a stale baseVersion with the current version, keeps and diffs old versions", async () => {
    const me = await consoleSession(env());
    const created = await create(me, yamlNamed("versioned"));
    expect(created).toMatchObject({
      name: "versioned",
      version: 1,
      role: "owner",
      stepCount: 1,
      ownerId: me.user.id,
      sharedWith: [],
    });

    const got = await send(me, "GET", `/api/console/workflows/${created.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: created.id, yaml: yamlNamed("versioned"), version: 1, role: "owner" });

    const v2 = await send(me, "PUT", `/api/console/workflows/${created.id}`, {
      body: { yaml: yamlNamed("versioned", "two"), baseVersion: 1 },
    });
    expect(v2.status, JSON.stringify(v2.body)).toBe(200);
    expect(v2.body).toMatchObject({ version: 2, yaml: yamlNamed("versioned", "two") });

    // A second editor who started from version 1 does not overwrite version 2.
    const stale = await send(me, "PUT", `/api/console/workflows/${created.id}`, {
      body: { yaml: yamlNamed("versioned", "three"), baseVersion: 1 },
    });
    expect(statusAndCode(stale)).toEqual([409, "CONFLICT"]);
    expect(stale.body.currentVersion).toBe(2);
    expect(stale.body.error).toContain("version 2");

    const bad = await send(me, "PUT", `/api/console/workflows/${created.id}`, {
      body: { yaml: "name: x\nsteps: 3\n" },
    });
    expect(statusAndCode(bad)).toEqual([400, "WORKFLOW_INVALID"]);
    expect(bad.body.details).toContainEqual(expect.objectContaining({ line: 2, column: expect.any(Number) }));

    const v3 = await send(me, "PUT", `/api/console/workflows/${created.id}`, {
      body: { yaml: yamlNamed("renamed", "three") },
    });
    expect(v3.body).toMatchObject({ version: 3, name: "renamed" });

    const versions = await send(me, "GET", `/api/console/workflows/${created.id}/versions`);
    expect(versions.body).toEqual({
      items: [
        { version: 3, updatedAt: expect.any(Number), current: true },
        { version: 2, updatedAt: expect.any(Number), current: false },
        { version: 1, updatedAt: expect.any(Number), current: false },
      ],
    });
    const old = await send(me, "GET", `/api/console/workflows/${created.id}/versions/1`);
    expect(old.body).toEqual({
      id: created.id,
      version: 1,
      updatedAt: expect.any(Number),
      yaml: yamlNamed("versioned"),
    });
    expect(statusAndCode(await send(me, "GET", `/api/console/workflows/${created.id}/versions/9`))).toEqual([
      404,
      "NOT_FOUND",
    ]);

    const diff = await send(me, "GET", `/api/console/workflows/${created.id}/diff?from=1&to=3`);
    expect(diff.status).toBe(200);
    expect(diff.body).toEqual({
      from: 1,
      to: 3,
      lines: [
        { op: "remove", line: "name: versioned" },
        { op: "add", line: "name: renamed" },
        { op: "same", line: "steps:" },
        { op: "same", line: "  - name: first" },
        { op: "same", line: "    type: transform" },
        { op: "remove", line: "    output: one" },
        { op: "add", line: "    output: three" },
        { op: "same", line: "" },
      ],
    });
    expect(statusAndCode(await send(me, "GET", `/api/console/workflows/${created.id}/diff?from=1&to=7`))).toEqual([
      404,
      "NOT_FOUND",
    ]);
  });

  it("refuses a workflow too large to store (413, with its size and the limit), and gives up earlier versions to fit", async () => {
    const me = await consoleSession(env());
    // Stored with its parse, about as large: a workflow's YAML may take about half of max_payload (1 MB here).
    const large = (kb: number, c: string) => yamlNamed("large", `"${c.repeat(kb * 1024)}"`);
    const workflows = () => send(me, "GET", "/api/console/workflows");
    const refused = await send(me, "POST", "/api/console/workflows", { body: { yaml: large(600, "a") } });
    expect(statusAndCode(refused)).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(refused.body.error).toMatch(
      /^the workflow is too large to store: its YAML and its parse .* would take 12\d{5} bytes, over the 104\d{4} a stored workflow may take/,
    );
    expect((await workflows()).body).toMatchObject({ total: 0 });

    // Version 1 kept beside version 2 would pass the limit: version 2 is stored without it.
    const created = await create(me, large(350, "a"));
    const v2 = await send(me, "PUT", `/api/console/workflows/${created.id}`, { body: { yaml: large(350, "b") } });
    expect(v2.status).toBe(200);
    expect(v2.body).toMatchObject({ version: 2, yaml: large(350, "b") });
    const versions = () => send(me, "GET", `/api/console/workflows/${created.id}/versions`);
    expect((await versions()).body).toEqual({ items: [{ version: 2, updatedAt: expect.any(Number), current: true }] });
    expect(statusAndCode(await send(me, "GET", `/api/console/workflows/${created.id}/versions/1`))).toEqual([
      404,
      "NOT_FOUND",
    ]);
    // A smaller version leaves room for the one before it.
    const v3 = await send(me, "PUT", `/api/console/workflows/${created.id}`, { body: { yaml: large(100, "c") } });
    expect(v3.body).toMatchObject({ version: 3 });
    expect((await versions()).body).toMatchObject({ items: [{ version: 3 }, { version: 2 }] });
    // Too large even alone: refused, and version 3 stays current.
    const tooLarge = await send(me, "PUT", `/api/console/workflows/${created.id}`, { body: { yaml: large(600, "d") } });
    expect(statusAndCode(tooLarge)).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    const now = await send(me, "GET", `/api/console/workflows/${created.id}`);
    expect(now.body).toMatchObject({ version: 3, yaml: large(100, "c") });
    expect((await workflows()).body).toMatchObject({ total: 1 });
  });

  it("makes room for a layout or a pin as a save does: the oldest kept versions go first", async () => {
    const me = await consoleSession(env());
    const large = (kb: number, c: string) => yamlNamed("large", `"${c.repeat(kb * 1024)}"`);
    // Version 1 (470 KB) is kept beside version 2 (250 KB and its parse): about 990 KB of the 1 MB a record may take.
    const nearFull = async () => {
      const created = await create(me, large(470, "a"));
      const v2 = await send(me, "PUT", `/api/console/workflows/${created.id}`, { body: { yaml: large(250, "b") } });
      expect(v2.body).toMatchObject({ version: 2 });
      const versions = async () => {
        const r = await send(me, "GET", `/api/console/workflows/${created.id}/versions`);
        return (r.body as { items: Array<{ version: number }> }).items.map((v) => v.version);
      };
      expect(await versions()).toEqual([2, 1]);
      return { id: created.id, versions };
    };

    const pinned = await nearFull();
    const output = "p".repeat(60 * 1024);
    const pin = await send(me, "PUT", `/api/console/workflows/${pinned.id}/pins/first`, { body: { output } });
    expect(pin.status, JSON.stringify(pin.body)).toBe(200);
    expect(await pinned.versions()).toEqual([2]);
    const detail = await send(me, "GET", `/api/console/workflows/${pinned.id}`);
    expect(detail.body).toMatchObject({ version: 2, pins: { first: { output } } });

    const arranged = await nearFull();
    const positions = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`step-${i}`, { x: i, y: 2 * i }]));
    const layout = await send(me, "PUT", `/api/console/workflows/${arranged.id}/layout`, { body: { positions } });
    expect(layout.status, JSON.stringify(layout.body)).toBe(200);
    expect(await arranged.versions()).toEqual([2]);
    const after = await send(me, "GET", `/api/console/workflows/${arranged.id}`);
    expect(after.body).toMatchObject({ version: 2, layout: { positions } });

    // Nothing left to give up: a workflow of 500 KB has no room for 60 KB of pins, and says so.
    const alone = await create(me, large(500, "c"));
    const refused = await send(me, "PUT", `/api/console/workflows/${alone.id}/pins/first`, { body: { output } });
    expect(statusAndCode(refused)).toEqual([413, "PAYLOAD_TOO_LARGE"]);
    expect(refused.body.error).toMatch(
      /^the workflow's record has no room for its pins: with them it would take 1\d{6} bytes, over the 104\d{4} it may take/,
    );
    const unchanged = await send(me, "GET", `/api/console/workflows/${alone.id}`);
    expect(unchanged.body).toMatchObject({ version: 1, pins: {} });
  });

  it("the detail gives the variables the current version declares, for a run's form and a webhook's payload", async () => {
    const me = await consoleSession(env());
    const created = await create(me, yamlNamed("bare"));
    expect(created.variables).toEqual({});
    const yaml = `name: declared\nvariables:\n  who: { type: string, required: true, description: whom to greet }\n  n: { type: number, default: 1 }\nsteps:\n  - { name: first, type: transform, output: one }\n`;
    expect((await send(me, "PUT", `/api/console/workflows/${created.id}`, { body: { yaml } })).status).toBe(200);
    const got = ConsoleWorkflowDetail.parse((await send(me, "GET", `/api/console/workflows/${created.id}`)).body);
    expect(got.variables).toEqual({
      who: { type: "string", required: true, description: "whom to greet" },
      n: { type: "number", default: 1 },
    });
  });

  it("lists own and shared workflows newest first, searched by name in any case, paged by cursor", async () => {
    const me = await consoleSession(env());
    const other = await consoleSession(env());
    const a = await create(me, yamlNamed("Alpha-report"));
    const b = await create(me, yamlNamed("beta"));
    const c = await storeWorkflow(env(), other.user.id, yamlNamed("gamma-REPORT"), {
      sharedWith: { [me.user.id]: "editor" },
      updatedAt: Date.now() + 1000,
    });
    await storeWorkflow(env(), other.user.id, yamlNamed("hidden-report"));

    const all = ConsoleWorkflowList.parse((await send(me, "GET", "/api/console/workflows")).body);
    expect(all.items.map((w) => w.id)).toEqual([c.id, b.id, a.id]);
    expect(all).toMatchObject({ total: 3, nextCursor: null });
    expect(all.items[0]).toEqual({
      id: c.id,
      name: "gamma-REPORT",
      version: 1,
      updatedAt: c.updatedAt,
      role: "editor",
      stepCount: 1,
    });

    const searched = ConsoleWorkflowList.parse((await send(me, "GET", "/api/console/workflows?search=report")).body);
    expect(searched.items.map((w) => w.id)).toEqual([c.id, a.id]);

    const first = ConsoleWorkflowList.parse((await send(me, "GET", "/api/console/workflows?limit=2")).body);
    expect(first.items.map((w) => w.id)).toEqual([c.id, b.id]);
    expect(first.nextCursor).toEqual(expect.any(String));
    const second = ConsoleWorkflowList.parse(
      (await send(me, "GET", `/api/console/workflows?limit=2&cursor=${first.nextCursor}`)).body,
    );
    expect(second).toMatchObject({ items: [{ id: a.id }], total: 3, nextCursor: null });
  });
});

describe("sharing and deleting", () => {
  it("the owner shares by email; the sharee sees it with its role; a viewer may not edit, nobody but the owner shares or deletes", async () => {
    const owner = await consoleSession(env());
    const friend = await consoleSession(env());
    const w = await create(owner, yamlNamed("shared"));

    const shared = await send(owner, "PUT", `/api/console/workflows/${w.id}/sharing`, {
      body: { userEmail: friend.user.email.toUpperCase(), role: "viewer" },
    });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    expect(shared.body).toEqual({ id: w.id, sharedWith: [{ email: friend.user.email, role: "viewer" }] });

    const seen = await send(friend, "GET", `/api/console/workflows/${w.id}`);
    expect(seen.body).toMatchObject({ id: w.id, role: "viewer", sharedWith: null, yaml: yamlNamed("shared") });
    const listed = ConsoleWorkflowList.parse((await send(friend, "GET", "/api/console/workflows")).body);
    expect(listed.items).toEqual([expect.objectContaining({ id: w.id, role: "viewer" })]);
    expect(
      statusAndCode(
        await send(friend, "PUT", `/api/console/workflows/${w.id}`, { body: { yaml: yamlNamed("shared", "edit") } }),
      ),
    ).toEqual([403, "FORBIDDEN"]);

    await send(owner, "PUT", `/api/console/workflows/${w.id}/sharing`, {
      body: { userEmail: friend.user.email, role: "editor" },
    });
    const edited = await send(friend, "PUT", `/api/console/workflows/${w.id}`, {
      body: { yaml: yamlNamed("shared", "edit"), baseVersion: 1 },
    });
    expect(edited.body).toMatchObject({ version: 2, role: "editor" });
    expect(
      statusAndCode(
        await send(friend, "PUT", `/api/console/workflows/${w.id}/sharing`, {
          body: { userEmail: owner.user.email, role: "viewer" },
        }),
      ),
    ).toEqual([403, "FORBIDDEN"]);
    expect(statusAndCode(await send(friend, "DELETE", `/api/console/workflows/${w.id}`))).toEqual([403, "FORBIDDEN"]);

    const unshared = await send(owner, "PUT", `/api/console/workflows/${w.id}/sharing`, {
      body: { userEmail: friend.user.email, role: "none" },
    });
    expect(unshared.body).toEqual({ id: w.id, sharedWith: [] });
    expect(statusAndCode(await send(friend, "GET", `/api/console/workflows/${w.id}`))).toEqual([404, "NOT_FOUND"]);

    const deleted = await send(owner, "DELETE", `/api/console/workflows/${w.id}`);
    expect(deleted.status).toBe(204);
    expect(statusAndCode(await send(owner, "GET", `/api/console/workflows/${w.id}`))).toEqual([404, "NOT_FOUND"]);
    expect(await env().platform.store.workflows.get(w.id)).toBeNull();
  });
});

describe("sharing with an email that has no account", () => {
  const password = "correct horse battery";

  async function login(email: string): Promise<Session> {
    const r = await fetch(`${env().base}/api/console/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    expect(r.status).toBe(200);
    const cookie = r.headers.getSetCookie()[0]!.split(";")[0]!;
    const { csrfToken, user } = (await r.json()) as { csrfToken: string; user: { id: string } };
    return { user: (await env().platform.store.users.get(user.id))!.value, cookie, csrf: csrfToken };
  }

  it("is answered as a share with an account is, and the account made for the email takes the share", async () => {
    const owner = await consoleSession(env());
    const friend = await consoleSession(env());
    const w = await create(owner, yamlNamed("invited"));
    const newcomer = `newcomer-${newId()}@example.com`;
    const answers = [];
    for (const [email, role] of [
      [friend.user.email, "viewer"],
      [newcomer.toUpperCase(), "editor"],
    ] as const) {
      const r = await send(owner, "PUT", `/api/console/workflows/${w.id}/sharing`, {
        body: { userEmail: email, role },
      });
      answers.push([r.status, r.body]);
    }
    expect(answers).toEqual([
      [200, { id: w.id, sharedWith: [{ email: friend.user.email, role: "viewer" }] }],
      [
        200,
        {
          id: w.id,
          sharedWith: [
            { email: friend.user.email, role: "viewer" },
            { email: newcomer, role: "editor" },
          ],
        },
      ],
    ]);

    await createUser(env().platform.store, { email: newcomer, password, plan: "free" });
    const them = await login(newcomer);
    expect(ConsoleWorkflowDetail.parse((await send(them, "GET", `/api/console/workflows/${w.id}`)).body).role).toBe(
      "editor",
    );
    const listed = ConsoleWorkflowList.parse((await send(them, "GET", "/api/console/workflows")).body);
    expect(listed.items.map((i) => i.id)).toEqual([w.id]);
    // The owner sees them as before; the record holds their account now, no invitation.
    const detail = ConsoleWorkflowDetail.parse((await send(owner, "GET", `/api/console/workflows/${w.id}`)).body);
    expect(detail.sharedWith).toEqual([
      { email: friend.user.email, role: "viewer" },
      { email: newcomer, role: "editor" },
    ]);
    expect((await env().platform.store.workflows.get(w.id))!.value.sharedWith).toEqual({
      [friend.user.id]: "viewer",
      [them.user.id]: "editor",
    });
  });

  it("is withdrawn with `none`; one an account's making left behind is taken at its first login", async () => {
    const owner = await consoleSession(env());
    const kept = await create(owner, yamlNamed("invite-kept"));
    const withdrawn = await create(owner, yamlNamed("invite-withdrawn"));
    const email = `late-${newId()}@example.com`;
    for (const [w, role] of [
      [kept, "viewer"],
      [withdrawn, "viewer"],
      [withdrawn, "none"],
    ] as const)
      expect(
        (await send(owner, "PUT", `/api/console/workflows/${w.id}/sharing`, { body: { userEmail: email, role } }))
          .status,
      ).toBe(200);
    // Written as a crash after the account's write would leave it: its invitations not taken.
    await env().platform.store.users.create({ ...(await testUserWithPassword(password)), email });
    const them = await login(email);
    const listed = ConsoleWorkflowList.parse((await send(them, "GET", "/api/console/workflows")).body);
    expect(listed.items.map((i) => [i.id, i.role])).toEqual([[kept.id, "viewer"]]);
  });

  it("is refused past the most people a workflow is shared with (409), naming the bound", async () => {
    const owner = await consoleSession(env());
    const w = await create(owner, yamlNamed("crowded"));
    for (let i = 0; i < MAX_SHAREES_PER_WORKFLOW; i++) {
      const r = await send(owner, "PUT", `/api/console/workflows/${w.id}/sharing`, {
        body: { userEmail: `guest-${i}@example.com`, role: "viewer" },
      });
      expect(r.status).toBe(200);
    }
    const past = await send(owner, "PUT", `/api/console/workflows/${w.id}/sharing`, {
      body: { userEmail: "one-more@example.com", role: "viewer" },
    });
    expect(statusAndCode(past)).toEqual([409, "CONFLICT"]);
    expect(past.body.error).toBe(
      `conflict: a workflow is shared with at most ${MAX_SHAREES_PER_WORKFLOW} people; stop sharing it with one first`,
    );
    // Changing the role of one already there is no one more.
    const changed = await send(owner, "PUT", `/api/console/workflows/${w.id}/sharing`, {
      body: { userEmail: "guest-0@example.com", role: "editor" },
    });
    expect(changed.status).toBe(200);
  });
});

describe("PUT /api/console/workflows/{id}/layout", () => {
  it("keeps the canvas positions beside the YAML: shown in the detail, not a new version, kept across saves, replaced by the next layout", async () => {
    const me = await consoleSession(env());
    const w = await create(me, yamlNamed("laid-out"));
    expect(w.layout).toEqual({ positions: {} });
    const put = await send(me, "PUT", `/api/console/workflows/${w.id}/layout`, {
      body: { positions: { first: { x: 120.5, y: -40 } } },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ positions: { first: { x: 120.5, y: -40 } } });
    const read = ConsoleWorkflowDetail.parse((await send(me, "GET", `/api/console/workflows/${w.id}`)).body);
    expect([read.version, read.layout]).toEqual([1, { positions: { first: { x: 120.5, y: -40 } } }]);

    const saved = await send(me, "PUT", `/api/console/workflows/${w.id}`, {
      body: { yaml: yamlNamed("laid-out", "two"), baseVersion: 1 },
    });
    expect(ConsoleWorkflowDetail.parse(saved.body)).toMatchObject({
      version: 2,
      layout: { positions: { first: { x: 120.5, y: -40 } } },
    });
    await send(me, "PUT", `/api/console/workflows/${w.id}/layout`, {
      body: { positions: { renamed: { x: 0, y: 0 } } },
    });
    expect(ConsoleWorkflowDetail.parse((await send(me, "GET", `/api/console/workflows/${w.id}`)).body).layout).toEqual({
      positions: { renamed: { x: 0, y: 0 } },
    });
  });

  it("is refused to a viewer (403), and names a bad position (400)", async () => {
    const me = await consoleSession(env());
    const viewer = await consoleSession(env());
    const w = await create(me, yamlNamed("shared-layout"));
    await send(me, "PUT", `/api/console/workflows/${w.id}/sharing`, {
      body: { userEmail: viewer.user.email, role: "viewer" },
    });
    expect(
      statusAndCode(await send(viewer, "PUT", `/api/console/workflows/${w.id}/layout`, { body: { positions: {} } })),
    ).toEqual([403, "FORBIDDEN"]);
    const bad = await send(me, "PUT", `/api/console/workflows/${w.id}/layout`, {
      body: { positions: { first: { x: "left", y: 1 } } },
    });
    expect(bad.status).toBe(400);
    expect((bad.body.details as { field: string }[]).map((d) => d.field)).toEqual(["positions.first.x"]);
    const extra = await send(me, "PUT", `/api/console/workflows/${w.id}/layout`, {
      body: { positions: { first: { x: 1, y: 1, z: 3 } } },
    });
    expect(extra.status).toBe(400);
    expect(ConsoleWorkflowDetail.parse((await send(me, "GET", `/api/console/workflows/${w.id}`)).body).layout).toEqual({
      positions: {},
    });
  });
});

describe("console workflow routes: the plan's bound", () => {
  it("refuses a create past the free plan's 100 workflows with PLAN_LIMIT, passes one of two at 99, and a delete frees a place", async () => {
    const me = await consoleSession(env());
    const other = await consoleSession(env());
    // Shared with me, it counts for its owner only; stored straight into the store, mine count as any.
    await storeWorkflow(env(), other.user.id, yamlNamed("theirs"), { sharedWith: { [me.user.id]: "editor" } });
    const mine = await Promise.all(
      Array.from({ length: 99 }, (_, i) => storeWorkflow(env(), me.user.id, yamlNamed(`w${i}`))),
    );

    const post = () => send(me, "POST", "/api/console/workflows", { body: { yaml: yamlNamed("one-more") } });
    const raced = await Promise.all([post(), post()]);
    expect(raced.map((r) => r.status).sort()).toEqual([201, 403]);
    const lost = raced.find((r) => r.status === 403)!;
    expect(lost.body.code).toBe("PLAN_LIMIT");
    expect(lost.body.error).toMatch(/^the free plan allows 100 workflows per account, and this account owns/);

    const full = await post();
    expect(statusAndCode(full)).toEqual([403, "PLAN_LIMIT"]);
    expect(full.body.error).toBe(
      "the free plan allows 100 workflows per account, and this account owns 100: delete workflows it no longer " +
        "needs, or move it to a larger plan",
    );
    expect((await send(me, "DELETE", `/api/console/workflows/${mine[0]!.id}`)).status).toBe(204);
    expect((await post()).status).toBe(201);
    expect(statusAndCode(await post())).toEqual([403, "PLAN_LIMIT"]);
    // The other account, with one of its own, has all its room but that one.
    expect((await send(other, "POST", "/api/console/workflows", { body: { yaml: yamlNamed("mine") } })).status).toBe(
      201,
    );
  });
});

describe("console workflow routes: the plan's code step timeout", () => {
  const longStep = (timeout: number) => `name: nightly
steps:
  - name: prepare
    type: transform
    output: 1
  - name: crunch
    type: code
    language: python
    timeout: ${timeout}
    code: print(1)
`;

  it("refuses a code step's timeout over the owner's plan's with WORKFLOW_INVALID, naming the step, its place and the bound", async () => {
    const free = await consoleSession(env(), "free");
    const refused = await send(free, "POST", "/api/console/workflows", { body: { yaml: longStep(3600) } });
    expect(statusAndCode(refused)).toEqual([400, "WORKFLOW_INVALID"]);
    expect(refused.body.details).toEqual([
      {
        path: "steps[1].timeout",
        line: 9,
        column: 14,
        message:
          "step `crunch` asks for a timeout of 3600 s, over the 300 s (5 min) the free plan allows a code step: lower " +
          "it, or move the account to a larger plan",
      },
    ]);
    // At the bound it is stored; an edit past it is refused as a create is.
    const stored = await create(free, longStep(300));
    const edit = await send(free, "PUT", `/api/console/workflows/${stored.id}`, { body: { yaml: longStep(301) } });
    expect(statusAndCode(edit)).toEqual([400, "WORKFLOW_INVALID"]);

    // An enterprise owner's may run 6 h; its free editor saves within the owner's plan, not its own.
    const enterprise = await consoleSession(env(), "enterprise");
    const theirs = await create(enterprise, longStep(3600));
    const shared = await send(enterprise, "PUT", `/api/console/workflows/${theirs.id}/sharing`, {
      body: { userEmail: free.user.email, role: "editor" },
    });
    expect(shared.status, JSON.stringify(shared.body)).toBe(200);
    const edited = await send(free, "PUT", `/api/console/workflows/${theirs.id}`, { body: { yaml: longStep(7200) } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    expect(
      statusAndCode(await send(enterprise, "POST", "/api/console/workflows", { body: { yaml: longStep(21_601) } })),
    ).toEqual([400, "WORKFLOW_INVALID"]);
  });
});
