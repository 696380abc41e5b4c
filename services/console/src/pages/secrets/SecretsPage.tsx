export default function SecretsPage() {
  return <h1>SecretsPage</h1>;
}
