import type { StepType } from "@wf/shared/workflow";

/** How each step type looks on the canvas and in the palette: a glyph (the fonts every system has) and a name. */
export const STEP_LOOKS: Readonly<Record<StepType, { glyph: string; label: string }>> = {
  code: { glyph: "{ }", label: "Code" },
  llm: { glyph: "✦", label: "LLM" },
  agent: { glyph: "◎", label: "Agent" },
  transform: { glyph: "ƒ", label: "Transform" },
  foreach: { glyph: "↻", label: "For each" },
  parallel: { glyph: "⇉", label: "Parallel" },
  wait: { glyph: "◷", label: "Wait" },
  workflow: { glyph: "↗", label: "Sub-workflow" },
};

export const PALETTE_TYPES = Object.keys(STEP_LOOKS) as StepType[];

export function stepLook(type: string | undefined): { glyph: string; label: string } {
  return (
    (type !== undefined && (STEP_LOOKS as Record<string, { glyph: string; label: string }>)[type]) || {
      glyph: "?",
      label: type ?? "no type",
    }
  );
}
