import { useEffect, useState } from "react";

export type EditorModule = typeof import("../../editor");

/**
 * The editor module, fetched when the editor page first needs it: CodeMirror and the validator
 * are a chunk of their own. A failed fetch stays failed for this page load (browsers keep a
 * failed module's answer), so the way to retry is to reload.
 */
export function useEditorModule(): { module: EditorModule | null; error: unknown } {
  const [module, setModule] = useState<EditorModule | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    import("../../editor").then(
      (loaded) => live && setModule(loaded),
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, []);
  return { module, error };
}
