import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { axeAudit, type AxeFinding } from "./axe";
import {
  consoleApi,
  createPerson,
  createRerunWorkflow,
  createWorkflow,
  describeInBrowser,
  logIn,
  openPage,
  screenshot,
  startExecution,
  useSharedConsoleService,
  type Person,
} from "./support";

const { service, llm } = useSharedConsoleService();

const unique = () => randomBytes(4).toString("hex");

/**
 * What every page is shown with: a failed run with tokens, a paused debug run, a pending approval, a key, a webhook, a
 * secret.
 */
interface Fixture {
  person: Person;
  workflowId: string;
  workflowName: string;
  failedId: string;
  debugId: string;
  approvalId: string;
  webhookId: string;
}

let fixture: Fixture;

/** Reads until `read` answers something truthy (expect.poll is for tests, not beforeAll). */
async function until<T>(read: () => Promise<T>, what: string, timeout = 30_000): Promise<T> {
  const end = Date.now() + timeout;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function waitForStatus(page: Page, id: string, status: RegExp): Promise<void> {
  await until(
    async () =>
      status.test((await consoleApi<{ status: string }>(page, "GET", `/api/console/executions/${id}`)).json.status),
    `${id} to be ${status}`,
  );
}

beforeAll(async () => {
  const person = await createPerson(service());
  const { context, page } = await openPage(service());
  await logIn(page, person);
  const workflowName = `audit-${unique()}`;
  const { workflowId } = await createRerunWorkflow(page, llm(), workflowName);
  // A second version, for the versions page's diff.
  const detail = await consoleApi<{ yaml: string; version: number }>(
    page,
    "GET",
    `/api/console/workflows/${workflowId}`,
  );
  const saved = await consoleApi(page, "PUT", `/api/console/workflows/${workflowId}`, {
    yaml: detail.json.yaml.replace("Summarise the ticket", "Summarise the ticket briefly"),
    baseVersion: detail.json.version,
  });
  if (saved.status !== 200) throw new Error(`saving v2 answered ${saved.status}`);
  const failedId = await startExecution(page, workflowId);
  await waitForStatus(page, failedId, /^FAILED$/);

  const debugWorkflow = await createWorkflow(
    page,
    `name: debug-${unique()}
variables:
  who: { type: string, default: world }
steps:
  - { name: first, type: transform, output: start }
  - { name: greet, type: transform, output: "hello {{ vars.who }}" }
`,
  );
  const debugId = await startExecution(page, debugWorkflow, {
    debug: { breakpoints: [{ type: "before_step", step: "greet" }] },
  });
  await waitForStatus(page, debugId, /^PAUSED$|^RUNNING$/);

  const review = await createWorkflow(
    page,
    `name: review-${unique()}
steps:
  - name: fetch
    type: transform
    output:
      rows:
        - { id: 1, action: close, notify: true }
        - { id: 2, action: reopen, notify: false }
  - name: apply
    type: transform
    manual_approval:
      message: "Apply {{ $count(steps.fetch.output.rows) }} actions?"
      timeout: 3600
      groups:
        - name: rows
          title: Actions to apply
          items: "{{ steps.fetch.output.rows }}"
          columns:
            - { key: id, title: ID, type: number }
            - { key: action, title: Action, type: string, editable: true }
            - { key: notify, title: Notify, type: boolean, editable: true }
    output: "{{ approval.rows }}"
`,
  );
  await startExecution(page, review);
  const approvalId: string = await until(
    async () =>
      (await consoleApi<{ approvals: { id: string }[] }>(page, "GET", "/api/console/approvals?status=PENDING")).json
        .approvals[0]?.id ?? "",
    "the approval request",
  );

  const key = await consoleApi(page, "POST", "/api/console/keys", {
    name: `audit-key-${unique()}`,
    scopes: ["WEBHOOK_TRIGGER"],
  });
  const secret = await consoleApi(page, "PUT", "/api/console/secrets/AUDIT_TOKEN", {
    value: "a secret value of some length",
  });
  const webhook = await consoleApi<{ id: string }>(page, "POST", "/api/webhooks", {
    workflowId,
    name: `audit-hook-${unique()}`,
    secretKey: "a shared secret of 16+ chars",
  });
  if (key.status !== 201 || secret.status >= 300 || webhook.status !== 201)
    throw new Error(`fixtures: key ${key.status}, secret ${secret.status}, webhook ${webhook.status}`);
  await context.close();
  fixture = { person, workflowId, workflowName, failedId, debugId, approvalId, webhookId: webhook.json.id };
}, 120_000);

/** A page of the console, how to reach it and what shows once it has loaded. */
interface AuditedPage {
  name: string;
  open(page: Page): Promise<void>;
}

const PAGES: AuditedPage[] = [
  {
    name: "workflows",
    open: async (page) => {
      await page.goto("/console/workflows");
      await page.getByRole("link", { name: fixture.workflowName, exact: true }).waitFor();
    },
  },
  {
    name: "editor",
    open: async (page) => {
      await page.goto(`/console/workflows/${fixture.workflowId}`);
      await page.locator(".cm-content").waitFor();
      await page.locator(".react-flow__node").first().waitFor();
    },
  },
  {
    name: "canvas",
    open: async (page) => {
      await page.goto(`/console/workflows/${fixture.workflowId}`);
      await page.locator(".react-flow__node").first().waitFor();
      await page.locator(".react-flow__node", { hasText: "check" }).first().click();
      await page.getByRole("complementary", { name: "Selected step" }).waitFor();
    },
  },
  {
    name: "versions",
    open: async (page) => {
      await page.goto(`/console/workflows/${fixture.workflowId}/versions`);
      await page.getByRole("heading", { name: "Versions" }).waitFor();
      await page.locator(".diff, .diff-view, table").last().waitFor();
    },
  },
  {
    name: "executions",
    open: async (page) => {
      await page.goto("/console/executions");
      await page.getByRole("link", { name: fixture.failedId }).first().waitFor();
    },
  },
  {
    name: "execution",
    open: async (page) => {
      await page.goto(`/console/executions/${fixture.failedId}`);
      await page.getByRole("heading", { name: `Execution ${fixture.failedId}` }).waitFor();
      await page.locator(".react-flow__node").first().waitFor();
    },
  },
  {
    name: "execution-list",
    open: async (page) => {
      await page.goto(`/console/executions/${fixture.failedId}?steps=list`);
      await page.getByRole("heading", { name: `Execution ${fixture.failedId}` }).waitFor();
      await page.getByRole("button", { name: "check", exact: true }).click();
      await page.getByRole("region", { name: "Step check" }).waitFor();
    },
  },
  {
    name: "execution-timeline",
    open: async (page) => {
      await page.goto(`/console/executions/${fixture.failedId}?steps=timeline`);
      await page.getByRole("heading", { name: `Execution ${fixture.failedId}` }).waitFor();
      await page.locator(".timeline-bar").first().waitFor();
    },
  },
  {
    name: "debugger",
    open: async (page) => {
      await page.goto(`/console/executions/${fixture.debugId}/debug`);
      await expect
        .poll(() => page.getByRole("region", { name: "Pause", exact: true }).textContent(), { timeout: 20_000 })
        .toContain("Paused at greet");
    },
  },
  {
    name: "approvals",
    open: async (page) => {
      await page.goto("/console/approvals");
      await page
        .getByRole("row", { name: /review-/ })
        .first()
        .waitFor();
    },
  },
  {
    name: "approval",
    open: async (page) => {
      await page.goto(`/console/approvals/${fixture.approvalId}`);
      await page.getByRole("region", { name: "Actions to apply" }).waitFor();
    },
  },
  {
    name: "keys",
    open: async (page) => {
      await page.goto("/console/keys");
      await page
        .getByText(/audit-key-/)
        .first()
        .waitFor();
    },
  },
  {
    name: "webhooks",
    open: async (page) => {
      await page.goto("/console/webhooks");
      await page
        .getByText(/audit-hook-/)
        .first()
        .waitFor();
    },
  },
  {
    name: "webhook",
    open: async (page) => {
      await page.goto(`/console/webhooks/${fixture.webhookId}`);
      await page.getByText(/curl/).first().waitFor();
    },
  },
  {
    name: "secrets",
    open: async (page) => {
      await page.goto("/console/secrets");
      await page.getByText("AUDIT_TOKEN").first().waitFor();
    },
  },
  {
    name: "usage",
    open: async (page) => {
      await page.goto("/console/usage");
      await page.getByRole("heading", { name: "Usage" }).waitFor();
      await page.getByText(fixture.workflowName).first().waitFor();
    },
  },
  {
    name: "account",
    open: async (page) => {
      await page.goto("/console/account");
      await page.getByRole("heading", { name: "Change your password" }).waitFor();
    },
  },
];

const report = (findings: AxeFinding[]) =>
  findings.map((f) => `${f.impact} ${f.rule} ×${f.nodes}: ${f.help} [${f.targets.join(" | ")}] ${f.summary}`);

describeInBrowser("accessibility: axe-core on every page", () => {
  for (const theme of ["light", "dark"] as const) {
    it(`has no serious or critical finding on any page in the ${theme} theme`, { timeout: 360_000 }, async () => {
      const { context, page } = await openPage(service(), { colorScheme: theme });
      const found: Record<string, string[]> = {};
      await page.goto("/console/login");
      await page.getByRole("button", { name: "Log in" }).waitFor();
      const login = await axeAudit(page);
      if (login.length > 0) found.login = report(login);
      await logIn(page, fixture.person);
      for (const p of PAGES) {
        await p.open(page);
        const findings = await axeAudit(page);
        if (findings.length > 0) found[p.name] = report(findings);
        await screenshot(page, `a11y-${p.name}-${theme}`);
      }
      console.log(JSON.stringify(found, null, 1));
      expect(found).toEqual({});
      await context.close();
    });
  }
});
