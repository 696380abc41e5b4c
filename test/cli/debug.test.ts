import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { newId } from "@wf/shared/execution";
import { newWorkflowRecord } from "@wf/shared/store";
import { definitionOf, waitFor } from "../support/runtime";
import { startCli, useTestService, workflowFiles } from "./cli-process";

const service = useTestService();

const files = await workflowFiles({
  chain: `
name: debugged-chain
variables:
  n: { type: number, default: 1 }
steps:
  - { name: a, type: transform, output: "{{ vars.n * 10 }}" }
  - { name: b, type: transform, output: "{{ steps.a.output + 1 }}" }
  - { name: c, type: transform, output: "{{ steps.b.output + 1 }}" }
`,
  branches: `
name: debugged-branches
steps:
  - name: par
    type: parallel
    branches:
      b1: [{ name: x1, type: transform, output: 1 }]
      b2: [{ name: x2, type: transform, output: 2 }]
`,
});

describe("wf debug at a prompt", () => {
  it("pauses after a step, evaluates against the pause, sets its output, steps to the next one and continues to the end", async () => {
    const cli = startCli(["debug", files.chain, "--var", "n=2", "--break", "after_step:a"], service().env, {
      stdin: true,
    });
    await cli.waitForOutput("⏸ paused at a (after_step bp1");
    // The pause's lines come in several writes: waited for, not read at once.
    await cli.waitForOutput("output: 20");
    await cli.waitForOutput("(help lists the commands)");

    cli.send("p steps.a.output * 2");
    await cli.waitForOutput("40");
    cli.send("b");
    await cli.waitForOutput("bp1  after_step:a");
    cli.send("set output=100");
    await cli.waitForOutput("set: recorded");
    cli.send("s");
    await cli.waitForOutput("⏸ paused at b");
    cli.send("c");

    const r = await cli.exited;
    expect(r.code, r.stderr).toBe(0);
    // b and c saw the edited output: 100 + 1 + 1.
    expect(r.stdout).toContain("102");
    expect(r.stdout).toMatch(/▶ step by local at pause/);
    expect(r.stdout).toMatch(/✎ local set output at pause/);
  });

  it("detaches at the end of its input, leaving the run paused, and --attach comes back to it", async () => {
    const first = startCli(["debug", files.chain, "--break", "before_step:b"], service().env, { stdin: true });
    await first.waitForOutput("⏸ paused at b");
    await first.waitForOutput("(help lists the commands)");
    const executionId = /debugging execution (\w+)/.exec(first.stdout())![1]!;
    first.send("q");
    const detached = await first.exited;
    expect(detached.code).toBe(0);
    expect(detached.stdout).toContain(`wf debug --attach ${executionId}`);
    const stored = (await service().rt.platform.store.executions.get(executionId))!.value;
    expect(stored.debug?.pause?.stepPath).toBe("b");

    const again = startCli(["debug", "--attach", executionId], service().env, { stdin: true });
    await again.waitForOutput("⏸ paused at b");
    again.send("skip 7");
    const r = await again.exited;
    expect(r.code, r.stderr).toBe(0);
    // b skipped with output 7: c = 8.
    expect(r.stdout).toContain("8");
    expect((await service().rt.platform.store.executions.get(executionId))!.value.steps.b?.output).toBe(7);
  });

  it("si at a workflow step debugs the child in the same session, then comes back to the parent's next step", async () => {
    const childYaml =
      'name: cli-stepped-child\nsteps:\n  - { name: c1, type: transform, output: 20 }\n  - { name: c2, type: transform, output: "{{ steps.c1.output + 1 }}" }\n';
    const child = newWorkflowRecord({
      id: `wf-${newId()}`,
      ownerId: "local",
      yaml: childYaml,
      definition: definitionOf(childYaml),
    });
    await service().rt.platform.store.workflows.create(child);
    const dir = await mkdtemp(join(tmpdir(), "wf-debug-"));
    const parent = join(dir, "parent.yaml");
    await writeFile(
      parent,
      `name: cli-stepping-parent\nsteps:\n  - { name: call, type: workflow, workflow: ${child.id} }\n  - { name: after, type: transform, output: "{{ steps.call.output * 2 }}" }\n`,
    );
    try {
      const cli = startCli(["debug", parent, "--break", "before_step:call"], service().env, { stdin: true });
      await cli.waitForOutput("⏸ paused at call");
      await cli.waitForOutput("(help lists the commands)");
      cli.send("si");
      await cli.waitForOutput("⏸ paused at c1 (conditional step_into");
      cli.send("c");
      await cli.waitForOutput("⏸ paused at after (before_step step");
      cli.send("c");
      const r = await cli.exited;
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("42");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("says what waits behind a pause: with `waiting`, and after the pause when it is shown again", async () => {
    const args = ["debug", files.branches, "--break", "after_step:x1", "--break", "after_step:x2"];
    const first = startCli(args, service().env, { stdin: true });
    await first.waitForOutput("⏸ paused at x");
    await first.waitForOutput("(help lists the commands)");
    const executionId = /debugging execution (\w+)/.exec(first.stdout())![1]!;
    const paused = /⏸ paused at (x\d)/.exec(first.stdout())![1]!;
    const other = paused === "x1" ? 2 : 1;
    // The other branch comes to its point while the pause stands, maybe after the pause was printed: polled for.
    await waitFor(
      async () =>
        (await service().rt.platform.store.executions.get(executionId))?.value.debug?.waiting.length === 1 || undefined,
      { what: `x${other} to wait behind the pause of execution ${executionId}` },
    );
    const point = `    x${other} after: After step breakpoint bp${other}`;
    first.send("help");
    await first.waitForOutput("  waiting              list what waits behind the pause");
    first.send("waiting");
    // The transcript shows the command typed after its prompt, then what it printed.
    await first.waitForOutput(`(wf debug) waiting\n  waiting their turn (1):\n${point}\n(wf debug) `);
    first.send("q");
    expect((await first.exited).code).toBe(0);

    const again = startCli(["debug", "--attach", executionId], service().env, { stdin: true });
    await again.waitForOutput("(help lists the commands)");
    expect(again.stdout()).toContain(`⏸ paused at ${paused} `);
    expect(again.stdout()).toContain(`  waiting their turn (1):\n${point}\n  (help lists the commands)`);
    expect(again.stdout()).not.toContain("held failures");
    again.send("c");
    await again.waitForOutput(`⏸ paused at x${other} `);
    again.send("waiting");
    await again.waitForOutput("(wf debug) waiting\nnothing waits behind this pause\n");
    expect(again.stdout().split(`⏸ paused at x${other} `)[1]).not.toContain("waiting their turn");
    again.send("c");
    const r = await again.exited;
    expect(r.code, r.stderr).toBe(0);
  });

  it("refuses a bad --break before starting anything", async () => {
    const r = await startCli(["debug", files.chain, "--break", "before_stp:a"], service().env).exited;
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("unknown breakpoint type `before_stp`");
  });
});
