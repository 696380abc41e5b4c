import { graph, type CanvasGraph } from "@wf/shared/canvas";

/**
 * The run's workflow as a canvas graph, from the definition the execution recorded when it
 * started: what it ran, whatever was saved or deleted since. JSON is YAML, so the canvas model
 * reads it as it reads the editor's text. Null when there is nothing to draw: the step list shows
 * the run then.
 */
export function runGraph(definition: unknown): CanvasGraph | null {
  if (typeof definition !== "object" || definition === null) return null;
  const drawn = graph(JSON.stringify(definition, null, 2));
  return drawn.nodes.length > 0 ? drawn : null;
}
