import { expect, it } from "vitest";
import { createPersonByCli, describeInBrowser, logIn, openPage, screenshot, useConsoleService } from "./support";

const service = useConsoleService({ npmStart: true });

describeInBrowser("the console's frame, served by npm start", () => {
  it("serves the app at /console/ with a strict CSP, never-cached pages and year-long cached hashed assets", async () => {
    const page = await fetch(`${service().base}/console/executions`, { headers: { "accept-encoding": "gzip" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-cache");
    const csp = page.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("style-src 'self';");
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await page.text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${service().base}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-type")).toContain("text/javascript");
    const missing = await fetch(`${service().base}/console/assets/nope-123.js`);
    expect(missing.status).toBe(404);
  });

  it("sends a visitor without a session to the login page, logs in, keeps the session across a reload and logs out", async () => {
    // As a person who cloned the repository makes the account: with the CLI, at the production scrypt cost.
    const person = await createPersonByCli(service());
    const { context, page, errors } = await openPage(service());
    await page.goto("/console/usage");
    await page.getByRole("button", { name: "Log in" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/console/login");
    await screenshot(page, "login");

    await page.getByLabel("Email").fill(person.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Log in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("wrong email or password");

    await logIn(page, person);
    await page.reload();
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    await expect.poll(() => page.getByText(person.email).count()).toBeGreaterThan(0);

    await page.getByRole("button", { name: "Log out" }).click();
    await page.getByRole("button", { name: "Log in" }).waitFor();
    await page.goto("/console/workflows");
    await page.getByRole("button", { name: "Log in" }).waitFor();
    // A wrong password is a 401 the app shows; nothing else may have failed in the page.
    expect(errors.filter((e) => !e.includes("401"))).toEqual([]);
    await context.close();
  });
});
