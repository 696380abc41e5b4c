import { completionStatus } from "@codemirror/autocomplete";
import { StateEffect, StateField, type Extension } from "@codemirror/state";
import { EditorView, ViewPlugin, showTooltip, type TooltipView, type ViewUpdate } from "@codemirror/view";
import { readSource } from "@wf/shared/canvas";
import { expressionScopeAt } from "./expression-scope";
import { expressionBefore } from "./output-paths";
import { previewData, type KnownData } from "./preview-context";
import type { PreviewAnswer, PreviewKind, PreviewLine } from "./preview-job";
import type { PreviewRunner } from "./preview-runner";
import { previewTarget } from "./preview-target";
import { sharedTextNote } from "./shared-text";

/** A pause in typing or moving this long previews the expression at the cursor. */
const DEBOUNCE_MS = 250;

/**
 * The preview on screen, under `pos`: the cursor when it was asked for, always in view there (a template's `{{` may be
 * scrolled out of a narrow editor, which hides a tooltip anchored to it).
 */
interface Shown {
  pos: number;
  answer: PreviewAnswer;
  /** In an agent's text, at which of the steps using it the data are read (sharedTextNote). */
  where?: string;
}

const TITLES: Record<PreviewKind, string> = {
  value: "Result on the known data",
  error: "Error",
  unknown: "Unknown",
  secret: "Not previewed",
  timeout: "Took too long",
};

/** The field's line: its rendered text, or what a title says of it otherwise. */
const fieldLine = ({ kind, text }: PreviewLine) =>
  kind === "value" ? `field: ${text}` : `field (${TITLES[kind].toLowerCase()}): ${text}`;

const show = StateEffect.define<Shown | null>();

const shown = StateField.define<Shown | null>({
  create: () => null,
  update(value, tr) {
    // Text typed at the cursor carries the preview along with it.
    let next = value && tr.docChanged ? { ...value, pos: tr.changes.mapPos(value.pos, 1) } : value;
    for (const effect of tr.effects) if (effect.is(show)) next = effect.value;
    return next;
  },
  // Under the line, where completion's list opens too: it gives way while that is open.
  provide: (field) =>
    showTooltip.compute([field, "selection"], (state) => {
      const at = state.field(field);
      return at === null || completionStatus(state) !== null ? null : { pos: at.pos, above: false, create: preview };
    }),
});

/**
 * One tooltip view for as long as a preview shows (CodeMirror keeps a view while its `create` is the same), its text
 * replaced in place: a status region (polite) already on the page is what a screen reader reads out on a change.
 */
function preview(view: EditorView): TooltipView {
  const dom = document.createElement("div");
  dom.className = "cm-expression-preview";
  const region = document.createElement("div");
  region.setAttribute("role", "status");
  const title = document.createElement("div");
  title.className = "cm-expression-preview-title";
  const body = document.createElement("pre");
  body.className = "cm-expression-preview-body";
  const item = document.createElement("div");
  item.className = "cm-expression-preview-item";
  const field = document.createElement("pre");
  field.className = "cm-expression-preview-field";
  const where = document.createElement("div");
  where.className = "cm-expression-preview-where";
  region.append(title, body, item, where, field);
  dom.append(region);
  const fill = (at: Shown | null) => {
    if (at === null) return;
    const { answer } = at;
    dom.dataset.kind = answer.kind;
    title.textContent = TITLES[answer.kind];
    body.textContent = answer.text;
    item.hidden = answer.fromItem === undefined;
    item.textContent = answer.fromItem ?? "";
    field.hidden = answer.field === undefined;
    field.textContent = answer.field === undefined ? "" : fieldLine(answer.field);
    where.hidden = at.where === undefined;
    where.textContent = at.where ?? "";
  };
  return {
    dom,
    // Filled once on the page, so that the first text is a change of the region too.
    mount: () => fill(view.state.field(shown)),
    update(update) {
      const at = update.state.field(shown);
      if (at !== update.startState.field(shown)) fill(at);
    },
  };
}

/**
 * Previews the expression the cursor is in (a `{{ … }}`, a `condition`'s value) under its line, after a pause: its
 * value on the known data (`known`, asked at each preview), evaluated in a Web Worker by the service's own code, cut
 * to a few lines; its error; or why it is not previewed (a secret, a name with no known value); or that it took too
 * long. Under it, what the whole field renders to when text or other templates surround the expression, and what it
 * read of a foreach's first item in the latest run (`item`, a step run in that item). An agent's text is previewed as
 * at the first step using the agent, on what every step using it reads; with no such step, the box says there is no
 * data. The page's thread only finds the expression and the data it reads; `runner`, the page's, evaluates it.
 */
export function expressionPreview(known: () => KnownData, runner: PreviewRunner): Extension {
  const plugin = ViewPlugin.fromClass(
    class {
      private timer = 0;
      /** Counts the requests: an answer to one that another followed is not shown. */
      private asked = 0;

      constructor(readonly view: EditorView) {}

      update(update: ViewUpdate) {
        if (update.docChanged || update.selectionSet || update.focusChanged) this.schedule();
      }

      destroy() {
        clearTimeout(this.timer);
        this.asked++;
      }

      private schedule() {
        clearTimeout(this.timer);
        const asked = ++this.asked;
        const { state } = this.view;
        const { main } = state.selection;
        const line = state.doc.lineAt(main.head);
        const inside =
          this.view.hasFocus && main.empty && expressionBefore(line.text.slice(0, main.head - line.from)) !== null;
        this.timer = window.setTimeout(() => (inside ? void this.run(asked) : this.clear()), inside ? DEBOUNCE_MS : 0);
      }

      private clear() {
        if (this.view.state.field(shown) !== null) this.view.dispatch({ effects: show.of(null) });
      }

      private async run(asked: number) {
        const { state } = this.view;
        const offset = state.selection.main.head;
        const source = readSource(state.doc.toString());
        const target = previewTarget(source, offset);
        if (target === null) return this.clear();
        const scope = expressionScopeAt(source, offset);
        const note = scope.shared === null ? null : sharedTextNote(scope.shared);
        if (note !== null && "none" in note)
          return this.view.dispatch({
            effects: show.of({ pos: offset, answer: { kind: "unknown", text: note.none } }),
          });
        const answer = await runner.preview({ ...target, ...previewData(scope, known()) });
        if (answer === null || asked !== this.asked) return;
        this.view.dispatch({ effects: show.of({ pos: offset, answer, ...(note === null ? {} : note) }) });
      }
    },
  );
  return [shown, plugin];
}
