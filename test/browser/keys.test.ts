import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import {
  createPerson,
  describeInBrowser,
  logIn,
  openPage,
  screenshot,
  signedIn,
  unexpectedErrors,
  useSharedConsoleService,
} from "./support";

const { service } = useSharedConsoleService();

/** A unique name per test, fit for a key's name and a secret's name. */
const unique = (prefix: string) => `${prefix}_${randomBytes(4).toString("hex")}`;

describeInBrowser("API keys, secrets and the password in the console", () => {
  it(
    "creates a key shown once, which the v1 API takes until it is revoked in the console",
    { timeout: 120_000 },
    async () => {
      const { context, page, errors } = await signedIn(service());
      await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "API keys" }).click();
      await page.getByText("No API keys yet").waitFor();

      const name = unique("ci");
      await page.getByRole("button", { name: "Create key" }).click();
      const form = page.getByRole("dialog", { name: "Create an API key" });
      await form.getByLabel("Name").fill(name);
      // With no scope the service refuses, and its words are shown at the scopes.
      await form.getByRole("button", { name: "Create key" }).click();
      await form.getByText("needs at least one scope").waitFor();
      await screenshot(page, "keys-create-form");
      await form.getByRole("checkbox", { name: /WORKFLOW_READ/ }).check();
      await form.getByRole("checkbox", { name: /WORKFLOW_EXECUTE/ }).check();
      await form.getByRole("checkbox", { name: /EXECUTION_READ/ }).check();
      await form.getByLabel("Expires after (days)").fill("30");
      await form.getByRole("button", { name: "Create key" }).click();

      const shown = page.getByLabel("New API key");
      await shown.waitFor();
      const key = await shown.inputValue();
      expect(key).toMatch(/^wfk_[^_]+_.+/);
      await page.getByText("it will not be shown again").waitFor();
      await screenshot(page, "keys-created");

      const call = async () =>
        (await fetch(`${service().base}/api/v1/executions`, { headers: { authorization: `Bearer ${key}` } })).status;
      expect(await call()).toBe(200);
      const workflows = await fetch(`${service().base}/api/v1/workflows`, { headers: { "x-api-key": key } });
      expect(workflows.status).toBe(200);

      await page.getByRole("button", { name: "I have copied it" }).click();
      await expect.poll(() => page.getByLabel("New API key").count()).toBe(0);
      const row = page.getByRole("row", { name: new RegExp(name) });
      await expect.poll(() => row.textContent()).toContain("EXECUTION_READ");
      expect(await row.textContent()).toContain("active");
      // The key's use is recorded (at most once a minute), so a fresh list no longer says "never".
      await expect
        .poll(
          async () => {
            await page.reload();
            return row.getByRole("cell").nth(3).textContent({ timeout: 5_000 });
          },
          { timeout: 20_000 },
        )
        .not.toContain("never");
      // The secret is in no page once the notice is gone.
      expect(await page.content()).not.toContain(key);
      await screenshot(page, "keys-list");

      await row.getByRole("button", { name: `Revoke ${name}` }).click();
      const confirm = page.getByRole("dialog", { name: `Revoke “${name}”?` });
      await confirm.getByRole("button", { name: "Revoke key" }).click();
      await expect.poll(() => row.textContent()).toContain("revoked");
      expect(await row.getByRole("button", { name: `Revoke ${name}` }).count()).toBe(0);
      expect(await call()).toBe(401);

      expect(unexpectedErrors(errors, [400])).toEqual([]);
      await context.close();
    },
  );

  it(
    "sets, lists, replaces and deletes a secret; its value is never shown, a short one refused at the field",
    { timeout: 120_000 },
    async () => {
      const { context, page, errors } = await signedIn(service(), { colorScheme: "dark" });
      await page.goto("/console/secrets");
      await page.getByText("No secrets yet").waitFor();

      const name = unique("token");
      const form = page.getByRole("region", { name: "Set a secret" });
      await form.getByLabel("Name").fill(name);
      await form.getByLabel("Value").fill("abc");
      await form.getByRole("button", { name: "Save secret" }).click();
      const problem = form.locator("#new-secret-value-problem");
      await expect.poll(() => problem.textContent()).toContain("must have at least 4 characters");
      expect(await form.getByLabel("Value").getAttribute("aria-invalid")).toBe("true");

      const value = `s3cret-${randomBytes(6).toString("hex")}`;
      await form.getByLabel("Value").fill(value);
      await form.getByRole("button", { name: "Save secret" }).click();
      const row = page.getByRole("row", { name: new RegExp(name) });
      await row.waitFor();
      expect(await form.getByLabel("Value").inputValue()).toBe("");
      expect(await row.textContent()).toContain(`{{ secrets.${name} }}`);
      expect(await page.content()).not.toContain(value);
      // Typing an existing name says that saving replaces it.
      await form.getByLabel("Name").fill(name);
      await form.getByText("saving replaces its value").waitFor();
      await form.getByLabel("Name").fill("");
      await screenshot(page, "secrets");

      await row.getByRole("button", { name: `Replace value of ${name}` }).click();
      const replace = page.getByRole("dialog", { name: `Replace the value of ${name}` });
      await replace.getByLabel("New value").fill(`${value}-2`);
      await replace.getByRole("button", { name: "Replace value" }).click();
      await expect.poll(() => replace.isVisible()).toBe(false);

      await row.getByRole("button", { name: `Delete ${name}` }).click();
      await page
        .getByRole("dialog", { name: `Delete the secret ${name}?` })
        .getByRole("button", { name: "Delete secret" })
        .click();
      await page.getByText("No secrets yet").waitFor();
      expect(await page.getByRole("row", { name: new RegExp(name) }).count()).toBe(0);

      expect(unexpectedErrors(errors, [400])).toEqual([]);
      await context.close();
    },
  );

  it(
    "changes the password: the repeat checked in the page, the current one by the service, the other sessions ended",
    { timeout: 120_000 },
    async () => {
      const person = await createPerson(service());
      const mine = await openPage(service());
      const elsewhere = await openPage(service());
      await logIn(mine.page, person);
      await logIn(elsewhere.page, person);
      const { page } = mine;
      await page.goto("/console/account");
      await page.getByText(person.email, { exact: true }).first().waitFor();
      expect(await page.locator(".account-facts").textContent()).toContain("pro");

      const next = `another ${randomBytes(4).toString("hex")} passphrase`;
      await page.getByLabel("Current password").fill(person.password);
      await page.getByLabel(/^New password/).fill(next);
      await page.getByLabel("Repeat the new password").fill(`${next}!`);
      await page.getByRole("button", { name: "Change password" }).click();
      await page.getByText("The two new passwords differ").waitFor();

      await page.getByLabel("Current password").fill("not my password");
      await page.getByLabel("Repeat the new password").fill(next);
      await page.getByRole("button", { name: "Change password" }).click();
      await page.getByText("This is not your current password").waitFor();

      await page.getByLabel("Current password").fill(person.password);
      await page.getByLabel(/^New password/).fill("short");
      await page.getByLabel("Repeat the new password").fill("short");
      await page.getByRole("button", { name: "Change password" }).click();
      await page.getByText("must have at least 8 characters").waitFor();

      await page.getByLabel(/^New password/).fill(next);
      await page.getByLabel("Repeat the new password").fill(next);
      await page.getByRole("button", { name: "Change password" }).click();
      await page.getByText("1 other session was ended").waitFor();
      expect(await page.getByLabel("Current password").inputValue()).toBe("");
      await screenshot(page, "account");

      // The other session is gone: its next request sends it to the login page, where the new password works.
      await elsewhere.page.reload();
      await elsewhere.page.getByRole("button", { name: "Log in" }).waitFor();
      await logIn(elsewhere.page, { ...person, password: next });
      // This session stays.
      await page.reload();
      await page.getByLabel("Current password").waitFor();

      expect(unexpectedErrors(mine.errors, [400, 403])).toEqual([]);
      expect(unexpectedErrors(elsewhere.errors)).toEqual([]);
      await mine.context.close();
      await elsewhere.context.close();
    },
  );
});
