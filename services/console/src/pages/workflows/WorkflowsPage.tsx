export default function WorkflowsPage() {
  return <h1>WorkflowsPage</h1>;
}
