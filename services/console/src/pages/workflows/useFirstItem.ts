import { useEffect, useState } from "react";
import type { KnownItems, PreviewRunner, ShownItem } from "../../editor";

type Levels = readonly KnownItems[];

/** The same foreach steps' items: each level is one of the same known data's, whatever list holds them. */
const same = (a: Levels, b: Levels) => a.length === b.length && a.every((level, i) => level === b[i]);

/**
 * Item 0 of the innermost of nested foreach steps (their `items`, outermost first) in the latest run, as the preview
 * has it: from the editor's own preview worker (`previews`), which the page's thread leaves every expression to, and
 * which evaluates it once for both. Null while not known, or outside a foreach (`items` empty). Asked again only when
 * the items change, not at each edit of the text around them.
 */
export function useFirstItem(previews: PreviewRunner, items: Levels): ShownItem | null {
  const [levels, setLevels] = useState(items);
  const [first, setFirst] = useState<{ of: Levels; item: ShownItem | null } | null>(null);
  if (!same(levels, items)) setLevels(items);
  useEffect(() => {
    if (levels.length === 0) return;
    let live = true;
    void previews.firstItem(levels).then((item) => live && setFirst({ of: levels, item }));
    return () => {
      live = false;
    };
  }, [previews, levels]);
  return first !== null && same(first.of, items) ? first.item : null;
}
