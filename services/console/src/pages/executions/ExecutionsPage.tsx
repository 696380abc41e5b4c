export default function ExecutionsPage() {
  return <h1>ExecutionsPage</h1>;
}
