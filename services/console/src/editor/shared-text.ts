import { isMap, isScalar, isSeq, visit, type YAMLMap } from "yaml";
import { nodeAt, type CanvasGraph, type CanvasNode, type Source } from "@wf/shared/canvas";

/**
 * Text outside every step: an agent's definition (its `instructions`, its MCP servers' `url` and `headers`), which
 * each `agent` step naming the agent renders where it runs, in its own place among the steps.
 */
export interface SharedText {
  /** The agent whose definition holds the text; undefined for other text outside every step, which no step renders. */
  agent: string | undefined;
  /** The steps rendering it, in the text's order. */
  users: CanvasNode[];
}

const field = (map: YAMLMap, key: string): string | undefined => {
  const value = map.get(key, true);
  return isScalar(value) && typeof value.value === "string" ? value.value : undefined;
};

/** The name of the agent whose definition, in the top-level `agents`, holds `offset`. */
function agentAt(source: Source, offset: number): string | undefined {
  const root = source.doc.contents;
  const agents = isMap(root) ? root.get("agents", true) : undefined;
  if (!isSeq(agents)) return undefined;
  const agent = agents.items.find(
    (item): item is YAMLMap => isMap(item) && item.range != null && item.range[0] <= offset && offset <= item.range[1],
  );
  return agent === undefined ? undefined : field(agent, "name");
}

/** What text outside every step (at `offset` of `source`, `g` its graph) is rendered by. */
export function sharedTextAt(source: Source, g: CanvasGraph, offset: number): SharedText {
  const agent = agentAt(source, offset);
  if (agent === undefined) return { agent, users: [] };
  const users: CanvasNode[] = [];
  visit(source.doc, {
    Map(_, map) {
      if (field(map, "type") !== "agent" || field(map, "agent") !== agent || map.range == null) return;
      const node = g.nodes.find((n) => n.id === nodeAt(g, source.text, map.range![0]));
      // The step's own mapping, not one of the same keys in a value of it.
      if (node?.type === "agent" && node.name === field(map, "name")) users.push(node);
    },
  });
  return { agent, users };
}

/**
 * What the preview of text outside every step says of where it is read: as at the first step rendering it, on what
 * every step rendering it can read (commonScope); or, when none does, why there is no value.
 */
export function sharedTextNote({ agent, users }: SharedText): { where: string } | { none: string } {
  const [first] = users;
  if (agent === undefined) return { none: "This text is outside every step: no step renders it, so it has no data." };
  if (first === undefined)
    return { none: `No step uses the agent ${agent}: its text is rendered where a step using it runs.` };
  const at = first.name ?? first.id;
  return {
    where:
      users.length === 1
        ? `As at ${at}, the step using the agent ${agent}.`
        : `As at ${at}, the first of the ${users.length} steps using the agent ${agent}, on what each of them reads.`,
  };
}
