export default function ExecutionPage() {
  return <h1>ExecutionPage</h1>;
}
