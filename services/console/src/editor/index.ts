/**
 * The workflow YAML editor: CodeMirror with the workflow format's validation and completion. The
 * console loads this module on demand (a dynamic import), so CodeMirror and the validator stay
 * out of the pages that do not edit.
 */
import "./zod-jitless";
import { autocompletion, closeBrackets, closeBracketsKeymap, completionKeymap } from "@codemirror/autocomplete";
import {
  defaultKeymap,
  history,
  historyKeymap,
  indentLess,
  indentMore,
  isolateHistory,
  redo,
  undo,
} from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import { bracketMatching, foldGutter, foldKeymap, indentOnInput, indentUnit } from "@codemirror/language";
import { lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import {
  Annotation,
  Compartment,
  EditorSelection,
  EditorState,
  Prec,
  type Extension,
  type SelectionRange,
} from "@codemirror/state";
import {
  crosshairCursor,
  drawSelection,
  dropCursor,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  highlightSpecialChars,
  keymap,
  lineNumbers,
  rectangularSelection,
  showPanel,
  tooltips,
  type Panel,
} from "@codemirror/view";
import type { WorkflowIssue } from "@wf/shared/workflow";
import schema from "@wf/shared/schema/workflow.schema.json";
import { expressionCompletions, outputCompletions, reopensAfter, workflowCompletions } from "./complete";
import { offsetOf, toDiagnostics, workflowLinter, type StandingIssues } from "./lint";
import { unlistedUnderlinesGone } from "./listed-underlines";
import { expressionPreview } from "./expression-preview";
import { outputHover } from "./output-hover";
import { NOTHING_KNOWN, outputsAt, type KnownData } from "./preview-context";
import { PreviewRunner } from "./preview-runner";
import { SchemaNav, type Schema } from "./schema-nav";
import { consoleTheme } from "./theme";
import { wrapLines } from "./wrap-indent";
import { yamlIndent } from "./yaml-indent";

export { checkWorkflow } from "./lint";
export { describeWorkflow, type WorkflowOutline } from "./describe";
export type { KnownData, KnownItems, KnownStep } from "./preview-context";
export type { ShownItem } from "./preview-job";

export interface WorkflowEditorOptions {
  text: string;
  readOnly: boolean;
  /** Every change of the text. */
  onChange(text: string): void;
  /**
   * The person moved the cursor (by clicking, typing, undoing): its offset. Not called for the page's own `select` and
   * edits.
   */
  onCursor?(offset: number): void;
  /** The editor got the focus: it is where a picked output field goes (`insert`). */
  onFocus?(): void;
  /**
   * The known output of each top-level step by name, for completion after `steps.<name>.output.` and its value on
   * hover, of the steps before the cursor's step only; inside a foreach, `knownData`'s item-0 results of the steps of
   * its item stand over them.
   */
  knownOutputs?(): Readonly<Record<string, unknown>>;
  /** What an expression at the cursor is previewed on: the steps' known results, the latest run's variables. */
  knownData?(): KnownData;
  /** Evaluates the previews: the page's, whose step panel asks it for a foreach's item 0 too (one worker for both). */
  previews: PreviewRunner;
  /** The names of the secrets the workflow's runs read, for completion after `secrets.`; none when not given. */
  secretNames?(): readonly string[];
}

/** A replacement of `[from, to)` in the document as it was before the change. */
export interface EditorEdit {
  from: number;
  to: number;
  insert: string;
}

export interface WorkflowEditor {
  text(): string;
  /** Replaces the whole text (a reload), which becomes one step of undo. */
  setText(text: string): void;
  /** Puts the cursor at a 1-based line and column, scrolled into view, and focuses the editor. */
  goTo(line: number, column: number): void;
  /**
   * Applies changes made elsewhere (the canvas) as one transaction: one step of the editor's
   * undo history, never merged with typing before or after it.
   */
  applyEdits(edits: readonly EditorEdit[]): void;
  /** Selects `[from, to)` and scrolls its start into view, leaving the focus where it is. */
  select(from: number, to: number): void;
  /**
   * Puts `text` in place of the person's own selection (not one the page made), or at the end, as
   * their edit, leaving the focus where it is; answers the 1-based line it went in, or null when
   * the text is read-only.
   */
  insert(text: string): number | null;
  /**
   * The editor's own undo and redo, for keys pressed elsewhere on the page; false when there was nothing to undo or
   * redo.
   */
  undo(): boolean;
  redo(): boolean;
  /**
   * Shows issues found elsewhere in `text` (the service's answer to a save) until the next edit is
   * checked; a check of that same text (one pending when they came) leaves them standing. When
   * the editor no longer holds `text` they are not shown, and false says so: the editor's own check
   * of what it holds, already made or pending, is the answer about it.
   */
  showIssues(issues: readonly WorkflowIssue[], text: string): boolean;
  /**
   * The problems the page lists now (shownProblems): an underline of one it no longer lists is taken away at once,
   * rather than at the linter's next check, a pause after the typing.
   */
  listProblems(issues: readonly WorkflowIssue[]): void;
  setReadOnly(readOnly: boolean): void;
  destroy(): void;
}

/** The window's height, and the editor's width. */
function inEditorsWidth(view: EditorView): { top: number; bottom: number; left: number; right: number } {
  const { left, right } = view.dom.getBoundingClientRect();
  return { top: 0, bottom: window.innerHeight, left, right };
}

/** Marks the page's own changes, which are not the person moving the cursor. */
const fromPage = Annotation.define<boolean>();

// JSON imports are typed by their literal contents, which TypeScript cannot relate to a recursive schema type.
const nav = new SchemaNav(schema as unknown as Schema);

/**
 * Text typed over a selection of several lines is put in by CodeMirror rather than by the
 * browser: Chrome's own editing, joining the lines, writes style attributes that the CSP refuses,
 * and every such keystroke would report a violation.
 */
const replaceLinesOurselves = EditorView.domEventHandlers({
  beforeinput(event, view) {
    const { main } = view.state.selection;
    if (event.inputType !== "insertText" || !event.data || view.state.readOnly) return false;
    if (main.empty || view.state.doc.lineAt(main.from).number === view.state.doc.lineAt(main.to).number) return false;
    event.preventDefault();
    view.dispatch(view.state.replaceSelection(event.data), { userEvent: "input.type", scrollIntoView: true });
    return true;
  },
});

/** Keys that leave the editor's "Tab moves on" state as it is: Tab itself, Escape, and modifiers alone. */
const KEEPS_TAB_PASSING = new Set(["Tab", "Escape", "Shift", "Control", "Alt", "Meta", "CapsLock"]);

/**
 * Tab in the editor indents, as in any code editor; a keyboard user must still be able to leave.
 * CodeMirror's way is kept (Escape, then Tab within 2 s, moves the focus on; Ctrl+M makes Tab always
 * move it) and said on screen, in a line shown and read out with the focus (`aria-describedby`).
 * Reached with Tab, the editor lets the next Tab go on until a key that edits or moves is pressed
 * there; a click in it is editing at once (docs/console.md#pages).
 */
function tabKeys(): { extensions: Extension; destroy(): void } {
  let lastTab = -Infinity;
  let passing = false;
  const hint = document.createElement("div");
  hint.className = "cm-tab-hint";
  hint.id = "wf-tab-hint";
  const say = () => {
    hint.textContent = passing
      ? "Tab moves on · type or use the arrows to edit here · Esc then Tab leaves"
      : "Tab indents · Esc then Tab leaves the editor · Ctrl+M: Tab moves on";
    hint.dataset.passing = String(passing);
  };
  say();
  const heardTab = (event: KeyboardEvent) => {
    if (event.key === "Tab") lastTab = event.timeStamp;
  };
  window.addEventListener("keydown", heardTab, true);
  const extensions = [
    keymap.of([
      { key: "Tab", run: (view) => !passing && indentMore(view), shift: (view) => !passing && indentLess(view) },
    ]),
    showPanel.of((): Panel => ({ dom: hint, top: false })),
    EditorView.domEventHandlers({
      focus(event) {
        passing = event.timeStamp - lastTab < 1000;
        say();
        return false;
      },
      mousedown() {
        if (passing) {
          passing = false;
          say();
        }
        return false;
      },
      keydown(event) {
        if (passing && !KEEPS_TAB_PASSING.has(event.key)) {
          passing = false;
          say();
        }
        return false;
      },
    }),
  ];
  return { extensions, destroy: () => window.removeEventListener("keydown", heardTab, true) };
}

export function createWorkflowEditor(parent: HTMLElement, options: WorkflowEditorOptions): WorkflowEditor {
  const readOnly = new Compartment();
  const knownOutputs = options.knownOutputs ?? (() => ({}));
  const knownData = options.knownData ?? (() => NOTHING_KNOWN);
  const known = outputsAt(knownData, knownOutputs);
  let standing: StandingIssues | null = null;
  const readOnlyExtensions = (on: boolean) => [EditorState.readOnly.of(on), EditorView.editable.of(!on)];
  const tab = tabKeys();
  // The person's own selection, kept through edits: the page's `select` (a step picked on the
  // canvas) must not make an insert replace the step it selected.
  let personal: SelectionRange | null = null;
  // The editor lives in a shadow root: CodeMirror styles a document with a <style> element, which
  // the console's CSP (style-src 'self') refuses, and a shadow root with a constructed style sheet,
  // which it allows. The theme's custom properties cross the boundary. A host is reused when a
  // view is made again in it (React's strict mode mounts twice).
  const root = parent.shadowRoot ?? parent.attachShadow({ mode: "open" });
  const view = new EditorView({
    parent: root,
    root,
    state: EditorState.create({
      doc: options.text,
      extensions: [
        // The page's shortcuts (save, run) listen on the window: the editor must not take Mod-Enter for itself.
        Prec.highest(keymap.of([{ key: "Mod-Enter", run: () => true }])),
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        foldGutter(),
        drawSelection(),
        dropCursor(),
        EditorState.allowMultipleSelections.of(true),
        EditorState.tabSize.of(2),
        indentUnit.of("  "),
        yamlIndent,
        indentOnInput(),
        bracketMatching(),
        closeBrackets(),
        autocompletion({
          override: [
            outputCompletions(known),
            expressionCompletions(options.secretNames ?? (() => [])),
            workflowCompletions(nav),
          ],
          activateOnCompletion: reopensAfter,
          icons: false,
        }),
        outputHover(known),
        expressionPreview(knownData, options.previews),
        rectangularSelection(),
        crosshairCursor(),
        highlightActiveLine(),
        highlightSelectionMatches(),
        wrapLines,
        // Lists and boxes at the cursor stay within the editor's width where they fit: the canvas's palette is just
        // beyond its right edge, and a completion list over it hid it.
        tooltips({ tooltipSpace: inEditorsWidth }),
        keymap.of([
          ...closeBracketsKeymap,
          ...defaultKeymap,
          ...searchKeymap,
          ...historyKeymap,
          ...foldKeymap,
          ...completionKeymap,
          ...lintKeymap,
        ]),
        tab.extensions,
        yaml(),
        lintGutter(),
        workflowLinter(() => standing),
        consoleTheme,
        readOnly.of(readOnlyExtensions(options.readOnly)),
        // tabindex: the text is a Tab stop (it is, being editable), said so for tools that look for a focusable element
        // in the scrolled area.
        EditorView.contentAttributes.of({
          "aria-label": "Workflow YAML",
          "aria-describedby": "wf-tab-hint",
          tabindex: "0",
        }),
        replaceLinesOurselves,
        EditorView.domEventHandlers({
          focus() {
            options.onFocus?.();
            return false;
          },
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange(update.state.doc.toString());
          if (update.selectionSet && !update.transactions.some((tr) => tr.annotation(fromPage))) {
            personal = update.state.selection.main;
            options.onCursor?.(update.state.selection.main.head);
          } else if (update.docChanged) personal = personal?.map(update.changes) ?? null;
        }),
      ],
    }),
  });

  return {
    text: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: text },
        selection: EditorSelection.cursor(0),
        annotations: fromPage.of(true),
      });
    },
    applyEdits(edits) {
      view.dispatch({
        changes: [...edits],
        userEvent: "canvas",
        annotations: [fromPage.of(true), isolateHistory.of("full")],
      });
    },
    select(from, to) {
      const max = view.state.doc.length;
      view.dispatch({
        selection: EditorSelection.range(Math.min(from, max), Math.min(to, max)),
        effects: EditorView.scrollIntoView(Math.min(from, max), { y: "start", yMargin: 40 }),
        annotations: fromPage.of(true),
      });
    },
    insert(text) {
      if (view.state.readOnly) return null;
      const { from, to } = personal ?? EditorSelection.cursor(view.state.doc.length);
      view.dispatch({
        changes: { from, to, insert: text },
        selection: EditorSelection.cursor(from + text.length),
        userEvent: "input.paste",
        scrollIntoView: true,
      });
      return view.state.doc.lineAt(view.state.selection.main.head).number;
    },
    undo: () => undo(view),
    redo: () => redo(view),
    goTo(line, column) {
      const pos = offsetOf(view.state.doc, line, column);
      view.dispatch({
        selection: EditorSelection.cursor(pos),
        effects: EditorView.scrollIntoView(pos, { y: "center" }),
      });
      view.focus();
    },
    showIssues(issues, text) {
      if (view.state.doc.toString() !== text) return false;
      standing = { doc: view.state.doc, issues };
      view.dispatch(setDiagnostics(view.state, toDiagnostics(view.state.doc, issues)));
      return true;
    },
    listProblems(issues) {
      const gone = unlistedUnderlinesGone(view.state, issues);
      if (gone !== null) view.dispatch(gone);
    },
    setReadOnly(on) {
      view.dispatch({ effects: readOnly.reconfigure(readOnlyExtensions(on)) });
    },
    destroy() {
      tab.destroy();
      view.destroy();
    },
  };
}

export { PreviewRunner };
