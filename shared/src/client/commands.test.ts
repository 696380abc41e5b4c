import { describe, expect, it } from "vitest";
import { definitionJson, sharedDefinition } from "../execution/index";
import { StartCommand } from "../messages/index";
import { parseWorkflow } from "../workflow/index";
import { startCommandJson } from "./commands";

function definition(): unknown {
  const parsed = parseWorkflow(
    'name: two\nsteps:\n  - { name: a, type: transform, output: "é \\"quoted\\"" }\n  - { name: b, type: transform, output: 2 }\n',
  );
  if (!parsed.ok) throw new Error("bad test workflow");
  return parsed.workflow;
}

function command(def: unknown): StartCommand {
  return StartCommand.parse({
    executionId: "01m93ndwxfd4j413y3p1",
    workflow: { id: "wf-two", name: "two", ownerId: "owner-1", version: 3, definition: def },
    inputs: { who: "x" },
    triggerSource: "webhook",
    requestedAt: 1_764_950_000_000,
  });
}

describe("startCommandJson", () => {
  it("splices a shared definition's kept JSON into the command, which reads back as the command", () => {
    const shared = sharedDefinition(definition(), "o1");
    for (const cmd of [command(shared), { ...command(shared), pending: true }]) {
      const text = startCommandJson(cmd);
      expect(text).toContain(`"definition":${definitionJson(shared)}`);
      expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(cmd)));
      expect(StartCommand.parse(JSON.parse(text))).toEqual(StartCommand.parse(JSON.parse(JSON.stringify(cmd))));
    }
  });

  it("writes a command whose definition is not shared as JSON.stringify does", () => {
    const cmd = command(definition());
    expect(startCommandJson(cmd)).toBe(JSON.stringify(cmd));
  });
});
