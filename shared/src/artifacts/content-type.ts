import { extname } from "node:path";

const TYPES: Record<string, string> = {
  ".txt": "text/plain; charset=utf-8",
  ".log": "text/plain; charset=utf-8",
  ".md": "text/markdown; charset=utf-8",
  ".csv": "text/csv; charset=utf-8",
  ".tsv": "text/tab-separated-values; charset=utf-8",
  ".json": "application/json",
  ".ndjson": "application/x-ndjson",
  ".yaml": "application/yaml",
  ".yml": "application/yaml",
  ".xml": "application/xml",
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".pdf": "application/pdf",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".svg": "image/svg+xml",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".tar": "application/x-tar",
};

/** Content type from the file name; unknown kinds are opaque bytes. */
export function contentTypeOf(name: string): string {
  return TYPES[extname(name).toLowerCase()] ?? "application/octet-stream";
}

/** What a console can show inline: images, text, PDF and HTML. */
export function isPreviewable(contentType: string): boolean {
  const base = contentType.split(";")[0]!.trim();
  return (
    base.startsWith("image/") ||
    base.startsWith("text/") ||
    base === "application/pdf" ||
    base === "application/json" ||
    base === "application/yaml" ||
    base === "application/xml"
  );
}
