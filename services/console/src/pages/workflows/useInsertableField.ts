import { useEffect, useMemo, useRef, type FocusEvent } from "react";
import { useInsertTargets, type InsertTarget } from "../../ui/insert-target";
import type { FieldChange } from "./field-change";

type TextInput = HTMLInputElement | HTMLTextAreaElement;

/**
 * Makes a text field of the step panel a place a picked output field goes: focused, it is
 * remembered; an insert goes where its cursor was when it lost the focus, and is one change of
 * the YAML, as if typed there and committed.
 */
export function useInsertableField(name: string, disabled: boolean, change: FieldChange) {
  const targets = useInsertTargets();
  const element = useRef<TextInput | null>(null);
  const caret = useRef<{ text: string; start: number; end: number } | null>(null);
  const latest = useRef({ disabled, change });
  latest.current = { disabled, change };
  const target = useMemo<InsertTarget>(
    () => ({
      name: `field ${name}`,
      insert(text) {
        if (latest.current.disabled) return null;
        const current = element.current?.value ?? "";
        const at = caret.current?.text === current ? caret.current : { start: current.length, end: current.length };
        const next = current.slice(0, at.start) + text + current.slice(at.end);
        const after = at.start + text.length;
        caret.current = { text: next, start: after, end: after };
        latest.current.change.set(next);
        return `field ${name}`;
      },
    }),
    [name],
  );
  useEffect(() => () => targets?.forget(target), [targets, target]);
  return {
    ref: (el: TextInput | null) => {
      element.current = el;
    },
    onFocus: () => targets?.remember(target),
    onBlur: (event: FocusEvent<TextInput>) => {
      const el = event.target;
      caret.current = {
        text: el.value,
        start: el.selectionStart ?? el.value.length,
        end: el.selectionEnd ?? el.value.length,
      };
    },
  };
}
