/** 256 random bits as 64 hex characters: as strong as the HMAC-SHA256 key can use, and safe to paste in a shell. */
export function generateSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}
