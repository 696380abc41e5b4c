import { Kvm } from "@nats-io/kv";
import { describe, expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { secretId } from "@wf/shared/store";
import { runCli } from "../cli/cli-process";
import { run, waitForStatus } from "../support/runtime";
import { eventsOf, model, useAiEnv } from "./support/ai-env";

const SECRETS_KEY = "secrets-test-key-abcdefghijklmnopqrstuvwxyz";
const env = useAiEnv({ WF_SECRETS_KEY: SECRETS_KEY });

/** Creates a user and sets one secret through the CLI, as an operator would. */
async function userWithSecret(name: string, value: string): Promise<string> {
  const cli = { NATS_URL: env().nats.url, WF_NAMESPACE: env().rt.ns, WF_SECRETS_KEY: SECRETS_KEY };
  const created = await runCli(
    [
      "admin",
      "user",
      "create",
      "--email",
      `${newId()}@example.com`,
      "--password",
      "a long password",
      "--plan",
      "pro",
      "--json",
    ],
    cli,
  );
  expect(created.code, created.stderr).toBe(0);
  const userId = (JSON.parse(created.stdout) as { id: string }).id;
  const set = await runCli(["admin", "secret", "set", "--user", userId, "--name", name, "--value", value], cli);
  expect(set.code, set.stderr).toBe(0);
  expect(set.stdout + set.stderr).not.toContain(value);
  return userId;
}

describe("wf admin secret", () => {
  it("sets, lists (names only), replaces and deletes a user's secrets; values are stored sealed", async () => {
    const cli = { NATS_URL: env().nats.url, WF_NAMESPACE: env().rt.ns, WF_SECRETS_KEY: SECRETS_KEY };
    const value = `tok-${newId()}`;
    const user = await userWithSecret("api_token", value);
    const stored = (await env().rt.platform.store.secrets.get(secretId(user, "api_token")))!.value;
    expect(stored.sealed).toMatch(/^v1\./);
    expect(JSON.stringify(stored)).not.toContain(value);

    const again = await runCli(
      ["admin", "secret", "set", "--user", user, "--name", "other", "--value", "second-value", "--json"],
      cli,
    );
    expect(again.code, again.stderr).toBe(0);
    const list = await runCli(["admin", "secret", "list", "--user", user, "--json"], cli);
    expect(list.code, list.stderr).toBe(0);
    const names = (JSON.parse(list.stdout) as { name: string }[]).map((s) => s.name);
    expect(names).toEqual(["api_token", "other"]);
    expect(list.stdout).not.toContain(value);

    const removed = await runCli(["admin", "secret", "delete", "--user", user, "--name", "other"], cli);
    expect(removed.code, removed.stderr).toBe(0);
    const missing = await runCli(["admin", "secret", "delete", "--user", user, "--name", "other"], cli);
    expect(missing.code).toBe(1);
    const short = await runCli(["admin", "secret", "set", "--user", user, "--name", "tiny", "--value", "abc"], cli);
    expect(short.code).toBe(1);
    expect(short.stderr).toContain("at least 4 characters");
    const badName = await runCli(
      ["admin", "secret", "set", "--user", user, "--name", "has-dash", "--value", "abcdef"],
      cli,
    );
    expect(badName.code).toBe(1);
    const noUser = await runCli(
      ["admin", "secret", "set", "--user", `nobody-${newId()}`, "--name", "x_1", "--value", "abcdef"],
      cli,
    );
    expect(noUser.code).toBe(1);
  }, 60_000);
});

describe("secrets in executions", () => {
  it("templates read them; they are masked in outputs, inputs, logs, errors and every event, even when streamed in pieces", async () => {
    const value = `s3cr3t-${newId()}`;
    const user = await userWithSecret("db_password", value);
    const m = model();
    // The model echoes the secret, cut across stream pieces.
    const echoed = `the password is ${value}, keep it safe`;
    const cut = echoed.indexOf(value) + 5;
    env().openai.script(m, {
      text: echoed,
      pieces: [echoed.slice(0, cut), echoed.slice(cut, cut + 7), echoed.slice(cut + 7)],
    });
    const id = await run(
      env().rt.platform,
      `
name: secret-masking
variables:
  notes: { type: string }
steps:
  - name: shown
    type: transform
    output: { dsn: "postgres://app:{{ secrets.db_password }}@db/app", length: "{{ $length(secrets.db_password) }}" }
  - name: script
    type: code
    language: bash
    input: { password: "{{ secrets.db_password }}" }
    code: |
      pw=$(printf %s "$WF_INPUT" | sed 's/.*"password":"\\([^"]*\\)".*/\\1/')
      echo "connecting with $pw" >&2
      echo "{\\"used\\": \\"$pw\\"}"
  - name: ask
    type: llm
    model: ${m}
    prompt: "Repeat the password {{ secrets.db_password }}"
  - { name: pasted, type: transform, output: { as_typed: "pasted ${value}" } }
  - name: fail
    type: code
    language: bash
    input: { password: "{{ secrets.db_password }}" }
    code: |
      echo "refused: $WF_INPUT" >&2
      exit 3
`,
      // A saved workflow's version, whose definition the executor stores by reference unless it holds a secret; with
      // variables large enough to be stored by reference, holding the secret's value too.
      { ownerId: user, monitoring: true, version: 1, inputs: { notes: `${"n".repeat(20_000)} ${value}` } },
    );
    const s = await waitForStatus(env().rt.platform, id);
    expect(s.status).toBe("FAILED");
    expect(s.steps.shown!.output).toEqual({ dsn: "postgres://app:***@db/app", length: value.length });
    expect(s.steps.script!.output).toEqual({ used: "***" });
    expect(s.steps.script!.logs).toContain("connecting with ***");
    expect(s.steps.ask!.output).toBe("the password is ***, keep it safe");
    expect(s.steps.fail!.error).toContain("***");
    // Pasted into the workflow itself: the execution's copy of its definition keeps it masked too.
    expect(s.steps.pasted!.output).toEqual({ as_typed: "pasted ***" });
    expect(JSON.stringify(s.definition)).toContain("pasted ***");
    expect(s.vars.notes).toBe(`${"n".repeat(20_000)} ***`);
    // The provider got the real value: it is masked only in what the service keeps and publishes.
    expect((env().openai.requests(m)[0]!.body.messages as { content: string }[])[0]!.content).toBe(
      `Repeat the password ${value}`,
    );

    const events = await eventsOf(env(), id);
    const deltas = events
      .filter((e) => e.type === "step_delta")
      .map((e) => e.data.text)
      .join("");
    expect(deltas).toBe("the password is ***, keep it safe");
    expect(events.some((e) => e.type === "step_log")).toBe(true);
    const stored = JSON.stringify((await env().rt.platform.store.executions.get(id))!.value);
    // A definition holding a secret's value is not stored by reference, nor are variables until masked: no unmasked
    // copy of either rests there.
    const definitions = await new Kvm(env().rt.platform.nc).open(`${env().rt.ns}_definitions`);
    const storedDefinitions: string[] = [];
    for await (const key of await definitions.keys()) storedDefinitions.push((await definitions.get(key))!.string());
    // The masked variables are stored by reference (the record's later writes name them).
    expect(storedDefinitions.filter((json) => json.includes('"notes":'))).toEqual([
      JSON.stringify({ notes: `${"n".repeat(20_000)} ***` }),
    ]);
    for (const [what, text] of [
      ["snapshot", stored],
      ["events", JSON.stringify(events)],
      ["stored definitions", JSON.stringify(storedDefinitions)],
    ] as const) {
      expect(text, what).not.toContain(value);
      // No piece of it long enough to matter either.
      expect(text, what).not.toContain(value.slice(0, 12));
    }
  }, 60_000);

  it("a secret the owner does not have reads as missing, and other owners' secrets are not visible", async () => {
    const value = `other-${newId()}`;
    await userWithSecret("shared_name", value);
    const id = await run(
      env().rt.platform,
      `
name: secret-other-owner
steps:
  - { name: peek, type: transform, output: "[{{ secrets.shared_name }}]" }
`,
      { ownerId: `stranger-${newId()}` },
    );
    const s = await waitForStatus(env().rt.platform, id);
    expect(s.status).toBe("COMPLETED");
    expect(s.output).toBe("[]");
  }, 60_000);
});
