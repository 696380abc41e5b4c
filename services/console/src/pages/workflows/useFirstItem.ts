import { useEffect, useState } from "react";
import type { KnownItems } from "../../editor";
import type { EditorModule } from "./useEditorModule";

type Levels = readonly KnownItems[];

/** The same foreach steps' items: each level is one of the same known data's, whatever list holds them. */
const same = (a: Levels, b: Levels) => a.length === b.length && a.every((level, i) => level === b[i]);

/**
 * Item 0 of the innermost of nested foreach steps (their `items`, outermost first) in the latest run, as the preview
 * has it: rendered in a worker of the editor `module`'s, since the page's thread never evaluates an expression. Null
 * while not known, or outside a foreach (`items` empty); the worker starts at the first foreach. Asked again only when
 * the items change, not at each edit of the text around them.
 */
export function useFirstItem(module: EditorModule | null, items: Levels): { value: unknown } | null {
  const [runner, setRunner] = useState<InstanceType<EditorModule["PreviewRunner"]> | null>(null);
  const [levels, setLevels] = useState(items);
  const [first, setFirst] = useState<{ of: Levels; item: { value: unknown } | null } | null>(null);
  if (!same(levels, items)) setLevels(items);
  useEffect(() => {
    if (module === null) return;
    const made = new module.PreviewRunner();
    setRunner(made);
    return () => made.destroy();
  }, [module]);
  useEffect(() => {
    if (module === null || runner === null || levels.length === 0) return;
    let live = true;
    void module.firstItemOf(runner, [...levels]).then((item) => live && setFirst({ of: levels, item }));
    return () => {
      live = false;
    };
  }, [module, runner, levels]);
  return first !== null && same(first.of, items) ? first.item : null;
}
