import type { StepType } from "@wf/shared/workflow";

interface StepLook {
  glyph: string;
  label: string;
}

/** How each step type looks on the canvas and in the palette: a glyph (the fonts every system has) and a name. */
export const STEP_LOOKS: Readonly<Record<StepType, StepLook & { article: "a" | "an" }>> = {
  code: { glyph: "{ }", label: "Code", article: "a" },
  // As said: "an el-el-em step".
  llm: { glyph: "✦", label: "LLM", article: "an" },
  agent: { glyph: "◎", label: "Agent", article: "an" },
  transform: { glyph: "ƒ", label: "Transform", article: "a" },
  foreach: { glyph: "↻", label: "For each", article: "a" },
  parallel: { glyph: "⇉", label: "Parallel", article: "a" },
  wait: { glyph: "◷", label: "Wait", article: "a" },
  workflow: { glyph: "↗", label: "Sub-workflow", article: "a" },
};

export const PALETTE_TYPES = Object.keys(STEP_LOOKS) as StepType[];

/** A palette item's name, whole: what a screen reader says and a voice user asks for ("Add an LLM step"). */
export function paletteName(type: StepType): { before: string; label: string; after: string } {
  const look = STEP_LOOKS[type];
  return { before: `Add ${look.article} `, label: look.label, after: " step" };
}

export function stepLook(type: string | undefined): StepLook {
  return (
    (type !== undefined && (STEP_LOOKS as Record<string, StepLook>)[type]) || {
      glyph: "?",
      label: type ?? "no type",
    }
  );
}
