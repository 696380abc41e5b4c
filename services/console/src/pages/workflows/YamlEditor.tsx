import { useEffect, useRef, type RefObject } from "react";
import type { KnownData, PreviewRunner, WorkflowEditor } from "../../editor";
import type { EditorModule } from "./useEditorModule";

/**
 * Hosts the CodeMirror view. `text` is only where it starts: from then on the view owns the text
 * (the page reads it, or replaces it through `editor.setText`), so a render never resets it.
 */
export function YamlEditor(props: {
  module: EditorModule;
  text: string;
  readOnly: boolean;
  editor: RefObject<WorkflowEditor | null>;
  onChange(text: string): void;
  onCursor(offset: number): void;
  onFocus?(): void;
  knownOutputs?(): Readonly<Record<string, unknown>>;
  knownData?(): KnownData;
  /** Evaluates the editor's previews (the page's, shared with the step panel). */
  previews: PreviewRunner;
  secretNames?(): readonly string[];
}) {
  const host = useRef<HTMLDivElement>(null);
  const latest = useRef(props);
  latest.current = props;

  useEffect(() => {
    if (!host.current) return;
    const { module, text, readOnly, editor, previews } = latest.current;
    const view = module.createWorkflowEditor(host.current, {
      text,
      readOnly,
      onChange: (t) => latest.current.onChange(t),
      onCursor: (offset) => latest.current.onCursor(offset),
      onFocus: () => latest.current.onFocus?.(),
      knownOutputs: () => latest.current.knownOutputs?.() ?? {},
      knownData: () => latest.current.knownData?.() ?? { steps: {}, vars: null, execution: null, foreach: {} },
      secretNames: () => latest.current.secretNames?.() ?? [],
      previews,
    });
    editor.current = view;
    return () => {
      view.destroy();
      editor.current = null;
    };
  }, []);

  useEffect(() => props.editor.current?.setReadOnly(props.readOnly), [props.readOnly, props.editor]);

  return <div ref={host} className="yaml-editor" />;
}
