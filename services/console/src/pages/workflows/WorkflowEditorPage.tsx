export default function WorkflowEditorPage() {
  return <h1>WorkflowEditorPage</h1>;
}
