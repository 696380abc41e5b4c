import { LineCounter, parseDocument, type Document } from "yaml";
import { YAML_OPTIONS } from "../workflow/validate";
import type { SourceRange } from "./types";

/** Workflow text parsed with its source tokens, which the edits read positions and scalar styles from. */
export interface Source {
  text: string;
  doc: Document.Parsed;
  lines: LineCounter;
}

export function readSource(text: string): Source {
  const lines = new LineCounter();
  const doc = parseDocument(text, { ...YAML_OPTIONS, keepSourceTokens: true, lineCounter: lines });
  return { text, doc, lines };
}

export function sourceRange(source: Source, start: number, end: number): SourceRange {
  const last = Math.max(start, end - 1);
  return { start, end, startLine: source.lines.linePos(start).line, endLine: source.lines.linePos(last).line };
}
