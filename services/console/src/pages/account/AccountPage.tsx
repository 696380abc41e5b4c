export default function AccountPage() {
  return <h1>AccountPage</h1>;
}
