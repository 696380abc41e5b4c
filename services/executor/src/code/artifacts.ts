import { posix } from "node:path";
import type { Readable } from "node:stream";
import { z } from "zod";
import type { Artifact, SandboxLimits } from "./types";

type ArtifactLimits = Pick<SandboxLimits, "artifactFiles" | "artifactFileBytes" | "artifactTotalBytes">;

export class ArtifactLimitError extends Error {}

/** 10 MB, 64 KB or 1000 bytes: limits are usually round. */
export function describeBytes(n: number): string {
  if (n >= 1024 * 1024 && n % (1024 * 1024) === 0) return `${n / (1024 * 1024)} MB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KB`;
  return `${n} bytes`;
}

/** The artifacts of one step, checked against the limits as they are added. */
export class ArtifactSet {
  private readonly sizes = new Map<string, number>();
  private readonly contents = new Map<string, Buffer>();
  private total = 0;

  constructor(private readonly limits: ArtifactLimits) {}

  /** Counts a file of `size` bytes against the limits, before its content is read. */
  reserve(path: string, size: number): void {
    const replaced = this.sizes.get(path);
    if (replaced === undefined && this.sizes.size >= this.limits.artifactFiles) {
      throw new ArtifactLimitError(`more than ${this.limits.artifactFiles} artifact files (the limit per step)`);
    }
    if (size > this.limits.artifactFileBytes) {
      throw new ArtifactLimitError(
        `artifact ${path} exceeds ${describeBytes(this.limits.artifactFileBytes)} (the limit per file)`,
      );
    }
    const total = this.total - (replaced ?? 0) + size;
    if (total > this.limits.artifactTotalBytes) {
      throw new ArtifactLimitError(
        `artifacts exceed ${describeBytes(this.limits.artifactTotalBytes)} in all (the limit per step)`,
      );
    }
    this.total = total;
    this.sizes.set(path, size);
  }

  add(path: string, content: Buffer): void {
    this.reserve(path, content.length);
    this.contents.set(path, content);
  }

  list(): Artifact[] {
    return [...this.contents].map(([path, content]) => ({ path, size: content.length, content }));
  }
}

/** A relative path inside the artifacts directory, normalised, or an error for anything else. */
export function artifactPath(path: string): string {
  const normal = posix.normalize(path.replaceAll("\\", "/"));
  if (
    path === "" ||
    path.includes("\0") ||
    posix.isAbsolute(normal) ||
    normal === "." ||
    normal.startsWith("../") ||
    normal === ".."
  ) {
    throw new ArtifactLimitError(`artifact path ${JSON.stringify(path)} is not a relative file path`);
  }
  return normal;
}

/** Longest header line of the artifacts stream: a JSON object naming one file. */
const MAX_HEADER_BYTES = 16 * 1024;
const Header = z.union([
  z.object({ path: z.string(), size: z.number().int().nonnegative() }),
  z.object({ end: z.literal(true) }),
  z.object({ error: z.string() }),
]);

/**
 * The artifacts the zygote's reader sends once the step is over (see zygote/artifacts.py): for
 * each file a JSON line {path, size} and exactly `size` bytes, then {end: true} or {error}. Read
 * as it comes, every limit checked before a file's content is kept; a path that is not relative
 * or a stream that breaks off fails the step like a limit.
 */
export async function readArtifactStream(stream: Readable, limits: ArtifactLimits): Promise<Artifact[]> {
  const artifacts = new ArtifactSet(limits);
  let buffer = Buffer.alloc(0);
  let file: { path: string; size: number; chunks: Buffer[]; got: number } | undefined;
  for await (const chunk of stream) {
    buffer = Buffer.concat([buffer, chunk as Buffer]);
    for (;;) {
      if (file) {
        const take = Math.min(file.size - file.got, buffer.length);
        file.chunks.push(buffer.subarray(0, take));
        file.got += take;
        buffer = buffer.subarray(take);
        if (file.got < file.size) break;
        artifacts.add(file.path, Buffer.concat(file.chunks));
        file = undefined;
        continue;
      }
      const newline = buffer.indexOf(10);
      if (newline < 0) {
        if (buffer.length > MAX_HEADER_BYTES)
          throw new ArtifactLimitError("artifacts could not be read: a malformed stream");
        break;
      }
      const header = Header.safeParse(parseJson(buffer.subarray(0, newline).toString("utf8")));
      buffer = buffer.subarray(newline + 1);
      if (!header.success) throw new ArtifactLimitError("artifacts could not be read: a malformed stream");
      if ("end" in header.data) return artifacts.list();
      if ("error" in header.data) throw new ArtifactLimitError(header.data.error);
      const path = artifactPath(header.data.path);
      artifacts.reserve(path, header.data.size);
      file = { path, size: header.data.size, chunks: [], got: 0 };
    }
  }
  throw new ArtifactLimitError("artifacts could not be read: the artifact reader ended before sending them all");
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
