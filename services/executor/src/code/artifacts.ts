import type { Dirent } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join, posix } from "node:path";
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
      throw new ArtifactLimitError(`artifact ${path} exceeds ${describeBytes(this.limits.artifactFileBytes)} (the limit per file)`);
    }
    const total = this.total - (replaced ?? 0) + size;
    if (total > this.limits.artifactTotalBytes) {
      throw new ArtifactLimitError(`artifacts exceed ${describeBytes(this.limits.artifactTotalBytes)} in all (the limit per step)`);
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
  if (path === "" || path.includes("\0") || posix.isAbsolute(normal) || normal === "." || normal.startsWith("../") || normal === "..") {
    throw new ArtifactLimitError(`artifact path ${JSON.stringify(path)} is not a relative file path`);
  }
  return normal;
}

/**
 * Every regular file under `dir`, relative paths kept. Symbolic links and special files are
 * left out: a link could name any file the runner can read. Sizes are checked before contents
 * are read, and the walk stops at the first limit passed.
 */
export async function collectArtifacts(dir: string, limits: ArtifactLimits): Promise<Artifact[]> {
  const sizes = new ArtifactSet(limits);
  const found: Array<{ path: string; full: string }> = [];
  const walk = async (rel: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(join(dir, rel), { withFileTypes: true });
    } catch {
      return; // unreadable (the step's own doing): nothing to collect there
    }
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile()) {
        const full = join(dir, path);
        sizes.reserve(path, (await lstat(full)).size);
        found.push({ path, full });
      }
    }
  };
  await walk("");
  // Checked again as read: a file may have grown since (a process that escaped the kill).
  const artifacts = new ArtifactSet(limits);
  for (const { path, full } of found) artifacts.add(path, await readFile(full));
  return artifacts.list();
}
