export default function WebhookPage() {
  return <h1>WebhookPage</h1>;
}
