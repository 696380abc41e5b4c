// Types of output-schemas.mjs, which is plain JavaScript: it runs in an expression host's thread, without tsx.
export function checkBySchema(job: {
  schema: string;
  answer?: string;
  owner: string;
}): { ok: true; value?: unknown } | { ok: false; problems: string };
export function schemasKept(): { count: number; chars: number; has(schemaJson: string): boolean };
