import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { axeAudit } from "./axe";
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

const source = (name: string) =>
  [
    "# kept in every copy",
    `name: ${name}   # the list shows it`,
    "steps:",
    "  - name: first",
    "    type: transform",
    "    output: { n: 1 }",
    "",
  ].join("\n");

/** The file a click downloads: its suggested name and its text. */
async function downloaded(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent("download"), click()]);
  return { name: download.suggestedFilename(), text: await readFile((await download.path())!, "utf8") };
}

describeInBrowser("workflow files in the console", () => {
  it("downloads the editor's text and a version, and duplicates from the editor and from the list", async () => {
    const { page, errors, context } = await signedIn(service());
    try {
      const name = `files ${newId().slice(-8).toLowerCase()}`;
      const yaml = source(name);
      const id = await createWorkflow(page, yaml);
      const placed = { first: { x: 40, y: 300 } };
      expect((await consoleApi(page, "PUT", `/api/console/workflows/${id}/layout`, { positions: placed })).status).toBe(
        200,
      );

      // The editor's Download saves what the editor holds, unsaved changes included.
      await page.goto(`/console/workflows/${id}`);
      await page.locator(".cm-content").click();
      await page.keyboard.press("ControlOrMeta+End");
      await page.keyboard.insertText("# typed, not saved\n");
      await page.getByRole("status").filter({ hasText: "unsaved" }).waitFor();
      // Less used than Run and Save, these wait behind More.
      await page.getByRole("button", { name: "More" }).click();
      expect(await page.getByRole("button", { name: "More" }).getAttribute("aria-expanded")).toBe("true");
      expect(await axeAudit(page)).toEqual([]);
      await screenshot(page, "workflow-files-editor", { fullPage: false });
      const fromEditor = await downloaded(page, () => page.getByRole("button", { name: "Download" }).click());
      // An action taken closes the menu.
      expect(await page.getByRole("button", { name: "Download" }).count()).toBe(0);
      // By keyboard: Enter opens it, Tab goes through its actions, Escape closes it with the focus back on More.
      await page.getByRole("button", { name: "More" }).focus();
      await page.keyboard.press("Enter");
      await page.keyboard.press("Tab");
      expect(await page.evaluate<string | null>("document.activeElement?.textContent ?? null")).toBe("Runs");
      await page.keyboard.press("Escape");
      expect(await page.getByRole("link", { name: "Runs", exact: true }).count()).toBe(0);
      expect(await page.evaluate<string | null>("document.activeElement?.textContent ?? null")).toContain("More");
      expect(fromEditor).toEqual({ name: `${name.replace(" ", "-")}.yaml`, text: `${yaml}# typed, not saved\n` });

      // Duplicate opens the text, unsaved changes included, as a new workflow named as a copy: nothing stored yet.
      await page.getByRole("button", { name: "More" }).click();
      await page.getByRole("button", { name: "Duplicate" }).click();
      // Its unsaved changes go into the copy, not into it: leaving asks first, as any way out of the editor does.
      await page.getByRole("dialog", { name: "Leave without saving?" }).getByRole("button", { name: "Leave" }).click();
      await page.waitForURL(/\/console\/workflows\/new$/);
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(`${name} (copy)`);
      await expect.poll(() => page.locator(".cm-content").textContent()).toContain(`name: ${name} (copy)   # the list`);
      await expect.poll(() => page.locator(".cm-content").textContent()).toContain("# typed, not saved");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.waitForURL(/\/console\/workflows\/(?!new)[^/?]+$/, { timeout: 15_000 });
      const copyId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
      expect(copyId).not.toBe(id);
      const copy = await consoleApi<{ yaml: string; name: string; version: number; layout: { positions: unknown } }>(
        page,
        "GET",
        `/api/console/workflows/${copyId}`,
      );
      expect(copy.json).toMatchObject({ name: `${name} (copy)`, version: 1, layout: { positions: placed } });
      expect(copy.json.yaml).toBe(`${yaml.replace(`name: ${name}`, `name: ${name} (copy)`)}# typed, not saved\n`);
      // The original is as it was stored: the edit went into the copy only.
      const original = await consoleApi<{ yaml: string; version: number }>(page, "GET", `/api/console/workflows/${id}`);
      expect(original.json).toMatchObject({ yaml, version: 1 });

      // The list's Duplicate copies the stored version.
      await page.goto("/console/workflows");
      await page.getByRole("searchbox", { name: "Search workflows" }).fill(name);
      const duplicate = page.getByRole("link", { name: `Duplicate ${name}`, exact: true });
      await duplicate.waitFor();
      await screenshot(page, "workflow-files-list", { fullPage: false });
      await duplicate.click();
      await page.waitForURL(/\/console\/workflows\/new\?copyOf=/);
      await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe(`${name} (copy)`);
      await expect.poll(() => page.locator(".cm-content").textContent()).toContain(`name: ${name} (copy)`);
      expect(await page.locator(".cm-content").textContent()).not.toContain("typed, not saved");

      // A version's Download names the file after its version.
      await page.goto(`/console/workflows/${id}/versions`);
      await page.getByRole("button", { name: "View version 1" }).click();
      const version = await downloaded(page, () =>
        page.getByRole("dialog").getByRole("button", { name: "Download" }).click(),
      );
      expect(version).toEqual({ name: `${name.replace(" ", "-")}-v1.yaml`, text: yaml });
      expect(unexpectedErrors(errors)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
