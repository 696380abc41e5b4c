export default function ApprovalsPage() {
  return <h1>ApprovalsPage</h1>;
}
