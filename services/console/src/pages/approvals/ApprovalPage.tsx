export default function ApprovalPage() {
  return <h1>ApprovalPage</h1>;
}
