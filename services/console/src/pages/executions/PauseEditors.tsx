import { useState } from "react";
import type { DebugCommandBody, PauseRecord } from "../../api/types";
import { prettyJson } from "../../ui/format";
import { JsonField, parseJson } from "./JsonField";

/**
 * What `set` may change at this pause, as editable JSON: the variables always; the step's input
 * before it runs, its output after it ran, a tool call's arguments before the call. The pause
 * stays after a set: several may follow, then a command that resumes.
 */
export function PauseEditors({
  pause,
  busy,
  onSet,
}: {
  pause: PauseRecord;
  busy: boolean;
  onSet(body: DebugCommandBody): void;
}) {
  const c = pause.context;
  return (
    <section className="card stack pause-editors" aria-label="Edit at this pause">
      <h2>Edit at this pause</h2>
      <Editor
        label="Variables"
        hint="Merged over the run's variables: the steps from here on see them."
        initial={c.vars}
        object
        busy={busy}
        onApply={(vars) => onSet({ vars: vars as Record<string, unknown> })}
      />
      {pause.phase === "before" && c.input !== undefined ? (
        <Editor
          label="Input"
          hint={`What ${pause.stepPath} runs with instead of its own input.`}
          initial={c.input}
          busy={busy}
          onApply={(input) => onSet({ input })}
        />
      ) : null}
      {pause.phase === "after" && c.output !== undefined ? (
        <Editor
          label="Output"
          hint={`${pause.stepPath}'s output as the later steps will read it.`}
          initial={c.output}
          busy={busy}
          onApply={(output) => onSet({ output })}
        />
      ) : null}
      {pause.phase === "tool_call" && c.toolCall ? (
        <Editor
          label="Arguments"
          hint={`What ${c.toolCall.server}/${c.toolCall.tool} is called with.`}
          initial={c.toolCall.arguments}
          busy={busy}
          onApply={(args) => onSet({ arguments: args })}
        />
      ) : null}
    </section>
  );
}

function Editor(props: {
  label: string;
  hint: string;
  initial: unknown;
  object?: boolean;
  busy: boolean;
  onApply(value: unknown): void;
}) {
  const [text, setText] = useState(() => prettyJson(props.initial ?? null));
  const parsed = parseJson(text, { object: props.object });
  const changed = text !== prettyJson(props.initial ?? null);
  return (
    <div className="stack editor">
      <JsonField label={props.label} hint={props.hint} value={text} onChange={setText} parsed={parsed} />
      <div className="row end">
        {changed ? (
          <button type="button" className="ghost" onClick={() => setText(prettyJson(props.initial ?? null))}>
            Undo changes
          </button>
        ) : null}
        <button
          type="button"
          disabled={!parsed.ok || !changed || props.busy}
          onClick={() => parsed.ok && props.onApply(parsed.value)}
        >
          Apply {props.label.toLowerCase()}
        </button>
      </div>
    </div>
  );
}
