import type { StepType } from "@wf/shared/workflow";
import { PALETTE_TYPES, paletteName, STEP_LOOKS } from "./step-types";

/** What a palette item carries in a drag, for the canvas to tell it from other things dropped on it. */
export const STEP_MIME = "application/x-wf-step-type";

export function isStepType(value: string): value is StepType {
  return (PALETTE_TYPES as string[]).includes(value);
}

/** The 8 step types: drag one onto the canvas to place it, or click it to add it at the end. */
export function Palette({ hasAgents, onAdd }: { hasAgents: boolean; onAdd(type: StepType): void }) {
  return (
    <div className="wf-palette" role="toolbar" aria-orientation="vertical" aria-label="Step types">
      {PALETTE_TYPES.map((type) => {
        const look = STEP_LOOKS[type];
        const name = paletteName(type);
        const missing = type === "agent" && !hasAgents;
        return (
          <button
            key={type}
            type="button"
            className="wf-palette-item"
            data-type={type}
            draggable={!missing}
            disabled={missing}
            title={
              missing
                ? "An agent step names one of the workflow's agents: define one under `agents` first"
                : `Drag onto the canvas, or click to add at the end`
            }
            onDragStart={(event) => {
              event.dataTransfer.setData(STEP_MIME, type);
              event.dataTransfer.effectAllowed = "copy";
            }}
            onClick={() => onAdd(type)}
          >
            <span className="wf-glyph" aria-hidden="true">
              {look.glyph}
            </span>
            {/* The name is the words shown, whole ("Add a Code step"): a label that differed would not match what a voice user says. */}
            <span className="wf-palette-label">
              <span className="sr-only">{name.before}</span>
              {name.label}
              <span className="sr-only">{name.after}</span>
            </span>
          </button>
        );
      })}
    </div>
  );
}
