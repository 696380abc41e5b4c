import { execFile } from "node:child_process";
import { createHmac } from "node:crypto";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { uniqueNamespace } from "../support/runtime";
import {
  consoleApi,
  createWorkflow,
  describeInBrowser,
  screenshot,
  signedIn,
  unexpectedErrors,
  useSharedConsoleService,
} from "./support";

const { service } = useSharedConsoleService();

/** The shown curl commands need curl and openssl, as a person running them would. */
const SHELL_TOOLS = ["/usr/bin/curl", "/usr/bin/openssl"].every((tool) => existsSync(tool));
if (!SHELL_TOOLS)
  console.warn(
    "[browser tests] the curl commands of the webhook page are not run: no /usr/bin/curl or /usr/bin/openssl",
  );

/** A workflow that greets `who`, made through the console API; `who` required or with a default. */
async function greetingWorkflow(page: Page, who: "required" | "defaulted"): Promise<{ id: string; name: string }> {
  const name = `greet-${uniqueNamespace()}`;
  const variable = who === "required" ? "{ type: string, required: true }" : "{ type: string, default: nobody }";
  const yaml = `name: ${name}\nvariables:\n  who: ${variable}\nsteps:\n  - name: greet\n    type: transform\n    output: "hello {{ vars.who }}"\n`;
  return { id: await createWorkflow(page, yaml), name };
}

type Execution = { id: string; status: string; triggerSource: string; steps: Record<string, { output: unknown }> };

/** The webhook-started execution `id` of the workflow, once it has ended, as the console API shows it. */
async function finishedRun(page: Page, workflowId: string, id: string): Promise<Execution> {
  await expect
    .poll(
      async () => {
        const list = await consoleApi<{ items: { id: string; status: string; triggerSource: string }[] }>(
          page,
          "GET",
          `/api/console/executions?workflowId=${workflowId}`,
        );
        return list.json.items.find((e) => e.id === id);
      },
      { timeout: 20_000, interval: 200 },
    )
    .toMatchObject({ triggerSource: "webhook", status: expect.stringMatching(/^(COMPLETED|FAILED)$/) });
  return (await consoleApi<Execution>(page, "GET", `/api/console/executions/${id}`)).json;
}

/** Runs a shown curl command as a person pastes it into bash, and answers what the service said. */
async function runCommand(command: string, env: Record<string, string>): Promise<{ executionId?: string }> {
  // --norc: with a socket for stdin (as Node gives it) Debian's bash would read bashrc, as under sshd.
  const { stdout } = await promisify(execFile)("bash", ["--norc", "-e", "-c", command], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    timeout: 10_000,
  });
  return JSON.parse(stdout) as { executionId?: string };
}

/** The payload a shown curl command sends: its `body='…'` line, unquoted as the shell would. */
function bodyOf(command: string): Record<string, unknown> {
  const quoted = /^body='((?:[^']|'\\'')*)'$/m.exec(command)?.[1];
  expect(quoted, command).toBeDefined();
  return JSON.parse(quoted!.replaceAll(`'\\''`, "'")) as Record<string, unknown>;
}

/** A full-page screenshot taken from the top, where the sticky bar belongs: clicks lower down scrolled the page. */
async function screenshotFromTop(page: Page, name: string): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
  await screenshot(page, name);
}

/** The figure under a label of the webhook page's Triggers card. */
function figure(page: Page, label: RegExp) {
  return page
    .getByRole("region", { name: "Triggers" })
    .locator("div", { has: page.locator("dt", { hasText: label }) })
    .locator("dd");
}

describeInBrowser("webhooks in the console", () => {
  it("creates an HMAC webhook with a mapping and an allow-list, shows a refused field at its input, and counts a signed trigger and a forged one", async () => {
    const { context, page, errors } = await signedIn(service());
    const workflow = await greetingWorkflow(page, "required");

    await page.goto("/console/webhooks");
    await page.getByText("No webhooks yet").waitFor();
    await page.getByRole("button", { name: "New webhook" }).click();
    const dialog = page.getByRole("dialog", { name: "New webhook" });
    await dialog.getByLabel("Workflow", { exact: true }).selectOption({ label: workflow.name });
    const name = `ci-${uniqueNamespace()}`;
    await dialog.getByLabel("Name", { exact: true }).fill(name);
    expect(await dialog.getByRole("radio", { name: /^HMAC signature/ }).isChecked()).toBe(true);
    await dialog.getByRole("button", { name: "Generate" }).click();
    await dialog.getByRole("radio", { name: /^Only the fields listed/ }).check();
    await dialog.getByRole("button", { name: "Add a mapping" }).click();
    await dialog.getByLabel("Variable 1", { exact: true }).fill("who");
    await dialog.getByLabel("Payload field 1", { exact: true }).fill("name");
    await dialog.getByRole("button", { name: "Add an address" }).click();
    await dialog.getByLabel("Source address 1", { exact: true }).fill("not an address");

    // The service's 400 names allowedSourceIps[0]: the message shows at that input.
    await dialog.getByRole("button", { name: "Create webhook" }).click();
    await dialog.getByText("must be an IPv4 or IPv6 address or CIDR range").waitFor();
    expect(await dialog.getByLabel("Source address 1", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await dialog.getByLabel("Source address 1", { exact: true }).fill("127.0.0.1");
    await dialog.getByRole("button", { name: "Create webhook" }).click();

    const secret = (await dialog.getByLabel("Webhook secret").textContent()) ?? "";
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    await dialog.getByRole("button", { name: "Open the webhook" }).click();
    await page.getByRole("heading", { name, level: 1 }).waitFor();
    const id = /\/console\/webhooks\/([^/?]+)$/.exec(page.url())?.[1] ?? "";
    const url = (await page.getByLabel("Trigger URL").textContent()) ?? "";
    expect(url).toBe(`${service().base}/api/webhooks/${id}/trigger`);
    const curl = (await page.getByLabel("curl example").textContent()) ?? "";
    expect(curl).toContain(`openssl dgst -sha256 -hmac "$WF_WEBHOOK_SECRET"`);
    expect(curl).toContain(`X-Webhook-Signature: sha256=$sig`);
    // The listed field carries a value of `who`'s type, so that the line runs as shown.
    expect(curl).toContain(`body='{"name":"example"}'`);

    const body = JSON.stringify({ name: "Ada" });
    const signature = createHmac("sha256", secret).update(body).digest("hex");
    const accepted = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-webhook-signature": `sha256=${signature}` },
      body,
    });
    expect(accepted.status).toBe(202);
    const { executionId } = (await accepted.json()) as { executionId: string };
    const forged = await fetch(url, {
      method: "POST",
      headers: { "x-webhook-signature": `sha256=${"0".repeat(64)}` },
      body,
    });
    expect(forged.status).toBe(401);

    const run = await finishedRun(page, workflow.id, executionId);
    expect(run.status).toBe("COMPLETED");
    expect(run.steps.greet!.output).toBe("hello Ada");

    await expect.poll(() => figure(page, /^Accepted/).textContent(), { timeout: 20_000 }).toBe("1");
    await expect.poll(() => figure(page, /^Rejected/).textContent(), { timeout: 20_000 }).toBe("1");
    const refusals = page.getByRole("table", { name: "Rejected by status" });
    expect(await refusals.getByRole("row", { name: /401/ }).getByRole("cell").last().textContent()).toBe("1");
    await screenshot(page, "webhook-detail");

    await page.getByRole("link", { name: "← Webhooks" }).click();
    const row = page.getByRole("row", { name: new RegExp(name) });
    await row.waitFor();
    expect(await row.textContent()).toContain(workflow.name);
    expect(await row.textContent()).toContain("HMAC");
    expect(await row.textContent()).toContain("1 allowed");
    await screenshot(page, "webhooks-list");

    await row.getByRole("button", { name: `Delete ${name}` }).click();
    await page
      .getByRole("dialog", { name: `Delete the webhook ${name}?` })
      .getByRole("button", { name: "Delete webhook" })
      .click();
    await page.getByText("No webhooks yet").waitFor();
    expect(
      (await fetch(url, { method: "POST", headers: { "x-webhook-signature": `sha256=${signature}` }, body })).status,
    ).toBe(404);
    expect(unexpectedErrors(errors, [400])).toEqual([]);
    await context.close();
  });

  it("binds a webhook to an API key, triggers it with the key, then switches it to HMAC with a PUT: the key is refused and a signature accepted (dark theme)", async () => {
    const { context, page, errors } = await signedIn(service(), { colorScheme: "dark" });
    const workflow = await greetingWorkflow(page, "defaulted");
    const keyName = `hook-key-${uniqueNamespace()}`;
    const key = await consoleApi<{ key: string }>(page, "POST", "/api/console/keys", {
      name: keyName,
      scopes: ["WEBHOOK_TRIGGER"],
    });
    expect(key.status).toBe(201);

    await page.goto("/console/webhooks");
    await page.getByRole("button", { name: "New webhook" }).click();
    const dialog = page.getByRole("dialog", { name: "New webhook" });
    await dialog.getByLabel("Workflow", { exact: true }).selectOption({ label: workflow.name });
    const name = `from-key-${uniqueNamespace()}`;
    await dialog.getByLabel("Name", { exact: true }).fill(name);
    await dialog.getByRole("radio", { name: /^API key/ }).check();
    // Leaving the key out would make an open webhook: the form says so before anything is sent.
    await dialog.getByRole("button", { name: "Create webhook" }).click();
    await dialog.getByText("choose the API key that may trigger it").waitFor();
    await dialog.getByLabel("Bound API key").selectOption({ label: keyName });
    await dialog.getByRole("button", { name: "Create webhook" }).click();

    // No secret to show: creating goes straight to the webhook.
    await page.getByRole("heading", { name, level: 1 }).waitFor();
    const url = (await page.getByLabel("Trigger URL").textContent()) ?? "";
    expect(await page.getByLabel("curl example").textContent()).toContain(`Authorization: Bearer $WF_API_KEY`);
    const byKey = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${key.json.key}` },
      body: JSON.stringify({ who: "Grace" }),
    });
    expect(byKey.status).toBe(202);
    const first = await finishedRun(page, workflow.id, ((await byKey.json()) as { executionId: string }).executionId);
    expect(first.steps.greet!.output).toBe("hello Grace");

    const settings = page.getByRole("form", { name: "Settings" });
    await settings.getByRole("radio", { name: /^HMAC signature/ }).check();
    const secret = "a shared secret of 16+ chars";
    await settings.getByLabel("Secret", { exact: true }).fill(secret);
    await settings.getByLabel("Replay protection").check();
    await settings.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => page.getByLabel("curl example").textContent()).toContain("webhook-signature: v1,$sig");
    await page.getByText("HMAC + replay", { exact: true }).waitFor();

    const refusedKey = await fetch(url, {
      method: "POST",
      headers: { authorization: `Bearer ${key.json.key}` },
      body: "{}",
    });
    expect(refusedKey.status).toBe(401);
    const body = JSON.stringify({ who: "Linus" });
    const messageId = `msg_${uniqueNamespace()}`;
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = createHmac("sha256", secret).update(`${messageId}.${timestamp}.${body}`).digest("base64");
    const headers = { "webhook-id": messageId, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
    const signed = await fetch(url, { method: "POST", headers, body });
    expect(signed.status).toBe(202);
    expect((await fetch(url, { method: "POST", headers, body })).status).toBe(401);
    const second = await finishedRun(page, workflow.id, ((await signed.json()) as { executionId: string }).executionId);
    expect(second.steps.greet!.output).toBe("hello Linus");

    await expect.poll(() => figure(page, /^Accepted/).textContent(), { timeout: 20_000 }).toBe("2");
    await expect.poll(() => figure(page, /^Rejected/).textContent(), { timeout: 20_000 }).toBe("2");
    // Saving scrolled the page: from the top, the sticky bar stays where it belongs in the full-page picture.
    await screenshotFromTop(page, "webhook-detail-dark");
    expect(unexpectedErrors(errors)).toEqual([]);
    await context.close();
  });

  it.skipIf(!SHELL_TOOLS)(
    "the curl command the page shows triggers the webhook as it stands: HMAC, HMAC with replay protection, then bound to a key",
    async () => {
      const { context, page, errors } = await signedIn(service());
      const workflow = await greetingWorkflow(page, "defaulted");
      const secret = "a shared secret of 16+ chars";
      const created = await consoleApi<{ id: string }>(page, "POST", "/api/webhooks", {
        workflowId: workflow.id,
        name: `shell-${uniqueNamespace()}`,
        secretKey: secret,
      });
      expect(created.status).toBe(201);
      const key = await consoleApi<{ key: string; name: string }>(page, "POST", "/api/console/keys", {
        name: `shell-key-${uniqueNamespace()}`,
        scopes: ["WEBHOOK_TRIGGER"],
      });
      await page.goto(`/console/webhooks/${created.json.id}`);
      const env = { WF_WEBHOOK_SECRET: secret, WF_API_KEY: key.json.key };

      /** Runs the command shown for the payload `{"who": who}` and returns the run it started. */
      const runShown = async (who: string) => {
        await page.getByLabel("Example payload (a JSON object)").fill(JSON.stringify({ who }));
        await expect.poll(() => page.getByLabel("curl example").textContent()).toContain(who.replaceAll("'", `'\\''`));
        const answer = await runCommand((await page.getByLabel("curl example").textContent()) ?? "", env);
        expect(answer.executionId, JSON.stringify(answer)).toBeDefined();
        return finishedRun(page, workflow.id, answer.executionId!);
      };

      // A quote in the payload: the command must quote it for the shell and sign the same bytes.
      expect((await runShown("O'Hara")).steps.greet!.output).toBe("hello O'Hara");

      const settings = page.getByRole("form", { name: "Settings" });
      await settings.getByLabel("Replay protection").check();
      await settings.getByRole("button", { name: "Save changes" }).click();
      await page.getByText("HMAC + replay", { exact: true }).waitFor();
      expect((await runShown("Replay-safe")).steps.greet!.output).toBe("hello Replay-safe");

      await settings.getByRole("radio", { name: /^API key/ }).check();
      await settings.getByLabel("Bound API key").selectOption({ label: key.json.name });
      await settings.getByRole("button", { name: "Save changes" }).click();
      await expect
        .poll(() => page.getByLabel("curl example").textContent())
        .toContain("Authorization: Bearer $WF_API_KEY");
      expect((await runShown("Keyed")).steps.greet!.output).toBe("hello Keyed");
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    },
  );
  it.skipIf(!SHELL_TOOLS)(
    "maps payload fields to variables when asked to, by name or as listed; the curl line as shown starts a workflow with required variables; a refusal says why",
    async () => {
      const { context, page, errors } = await signedIn(service());
      const name = `order-${uniqueNamespace()}`;
      const workflowId = await createWorkflow(
        page,
        `name: ${name}
variables:
  who: { type: string, required: true }
  count: { type: number, required: true }
  rush: { type: boolean, default: false }
steps:
  - name: greet
    type: transform
    output: "{{ vars.who }} x{{ vars.count }} rush={{ vars.rush }}"
`,
      );

      await page.goto("/console/webhooks");
      await page.getByRole("button", { name: "New webhook" }).click();
      const dialog = page.getByRole("dialog", { name: "New webhook" });
      await dialog.getByLabel("Workflow", { exact: true }).selectOption({ label: name });
      const hookName = `vars-${uniqueNamespace()}`;
      await dialog.getByLabel("Name", { exact: true }).fill(hookName);
      await dialog.getByRole("button", { name: "Generate" }).click();
      // Checked, the box does what it says: the payload's fields set the variables they name.
      expect(await dialog.getByLabel("Map payload fields to variables").isChecked()).toBe(true);
      expect(await dialog.getByRole("radio", { name: /^By name/ }).isChecked()).toBe(true);
      await dialog.getByText("The workflow's variables:").waitFor();
      await screenshot(page, "webhook-new-variables");
      await dialog.getByRole("button", { name: "Create webhook" }).click();
      const secret = (await dialog.getByLabel("Webhook secret").textContent()) ?? "";
      await dialog.getByRole("button", { name: "Open the webhook" }).click();
      await page.getByRole("heading", { name: hookName, level: 1 }).waitFor();
      const id = /\/console\/webhooks\/([^/?]+)$/.exec(page.url())?.[1] ?? "";
      expect(
        (await consoleApi<{ variableMapping: unknown }>(page, "GET", `/api/webhooks/${id}`)).json.variableMapping,
      ).toBeNull();

      // The ready-made line sets both required variables with values of their types: run as shown, it starts the
      // workflow.
      const env = { WF_WEBHOOK_SECRET: secret };
      const shown = (await page.getByLabel("curl example").textContent()) ?? "";
      const sent = bodyOf(shown);
      expect(Object.keys(sent).sort()).toEqual(["count", "rush", "who"]);
      expect(typeof sent.who).toBe("string");
      expect(typeof sent.count).toBe("number");
      expect(sent.rush).toBe(false);
      const byName = await runCommand(shown, env);
      expect(byName.executionId, JSON.stringify(byName)).toBeDefined();
      const first = await finishedRun(page, workflowId, byName.executionId!);
      expect(first.status).toBe("COMPLETED");
      expect(first.steps.greet!.output).toBe(`${String(sent.who)} x${String(sent.count)} rush=false`);

      // Unchecked, nothing in the payload would set `who` or `count`: the form says so instead of saving a webhook that
      // always answers 400.
      const settings = page.getByRole("form", { name: "Settings" });
      await settings.getByLabel("Map payload fields to variables").uncheck();
      await settings.getByRole("button", { name: "Save changes" }).click();
      await settings.getByText("who and count are required").waitFor();
      await screenshotFromTop(page, "webhook-variables-unset");
      expect(
        (await consoleApi<{ variableMapping: unknown }>(page, "GET", `/api/webhooks/${id}`)).json.variableMapping,
      ).toBeNull();

      // Listed fields: the payload's own names, set as the rows say.
      await settings.getByLabel("Map payload fields to variables").check();
      await settings.getByRole("radio", { name: /^Only the fields listed/ }).check();
      for (const [i, [variable, field]] of [
        ["who", "customer"],
        ["count", "quantity"],
      ].entries()) {
        await settings.getByRole("button", { name: "Add a mapping" }).click();
        await settings.getByLabel(`Variable ${i + 1}`, { exact: true }).fill(variable!);
        await settings.getByLabel(`Payload field ${i + 1}`, { exact: true }).fill(field!);
      }
      await settings.getByRole("button", { name: "Save changes" }).click();
      await expect.poll(() => page.getByLabel("curl example").textContent()).toContain('"customer":');
      expect(
        (await consoleApi<{ variableMapping: unknown }>(page, "GET", `/api/webhooks/${id}`)).json.variableMapping,
      ).toEqual({
        who: "customer",
        count: "quantity",
      });
      const listed = (await page.getByLabel("curl example").textContent()) ?? "";
      expect(Object.keys(bodyOf(listed)).sort()).toEqual(["customer", "quantity"]);
      const byField = await runCommand(listed, env);
      expect(byField.executionId, JSON.stringify(byField)).toBeDefined();
      expect((await finishedRun(page, workflowId, byField.executionId!)).status).toBe("COMPLETED");

      // A payload without them is refused, and the Triggers card says it was for a missing variable.
      const url = (await page.getByLabel("Trigger URL").textContent()) ?? "";
      const empty = await fetch(url, {
        method: "POST",
        headers: { "x-webhook-signature": createHmac("sha256", secret).update("{}").digest("hex") },
        body: "{}",
      });
      expect(empty.status).toBe(400);
      const refusals = page.getByRole("table", { name: "Rejected by status" });
      await expect
        .poll(() => refusals.getByRole("row", { name: /400/ }).textContent(), { timeout: 20_000 })
        .toContain("required variable `who` (string) is missing");
      await screenshotFromTop(page, "webhook-variables");
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    },
  );
});
