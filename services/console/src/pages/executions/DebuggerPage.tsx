export default function DebuggerPage() {
  return <h1>DebuggerPage</h1>;
}
