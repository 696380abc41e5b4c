import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { WfError } from "@wf/shared/errors";

/**
 * The built app of this checkout, which `npm start` builds (scripts/ensure-console-build.mjs);
 * from `npm run build`'s bundles (dist/*.js), the copy the build puts beside them.
 */
export const DEFAULT_CONSOLE_DIR = fileURLToPath(
  new URL(import.meta.url.endsWith(".js") ? "./console" : "../../../console/dist", import.meta.url),
);

/**
 * Scripts, styles, fonts and images only from the app's own files: no inline script or style
 * element, no eval. (React's style props are CSSOM, which CSP allows; the YAML editor keeps its
 * styles in constructed sheets of a shadow root, which CSP allows too.) Data only from this
 * origin; no framing.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; connect-src 'self'; " +
  "manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

interface StaticFile {
  type: string;
  raw: Buffer;
  /** Compressed on first request, then kept: compressing the whole build at start took seconds. */
  gzip?: Buffer;
  br?: Buffer;
}

/** Brotli's quality 11 (its default) takes ~17 s for the build here; 5 takes <1 s for a few % more bytes. */
const BROTLI_QUALITY = 5;

function encoded(file: StaticFile, accepts: string): [Buffer, string | undefined] {
  if (accepts.includes("br"))
    return [
      (file.br ??= brotliCompressSync(file.raw, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } })),
      "br",
    ];
  if (accepts.includes("gzip")) return [(file.gzip ??= gzipSync(file.raw)), "gzip"];
  return [file.raw, undefined];
}

/** Vite names built assets by content hash: such a file never changes under its name. */
const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * Serves the built console at /console/: files under assets/ cached for a year (their names carry their content's
 * hash), everything else answered with index.html, never cached, so that every page of the app is a URL to bookmark and
 * a new build is picked up at the next load. Files are read once, at start, and compressed at their first request; a
 * missing build answers 503 saying how to build.
 */
export function registerConsoleApp(app: FastifyInstance, dir: string): void {
  const files = loadBuild(dir);
  const send = (request: FastifyRequest, reply: FastifyReply, file: StaticFile, cache: string) => {
    const accepts = String(request.headers["accept-encoding"] ?? "");
    const [body, encoding] = encoded(file, accepts);
    void reply
      .header("content-type", file.type)
      .header("cache-control", cache)
      .header("vary", "accept-encoding")
      .header("content-security-policy", CONSOLE_CSP)
      .header("x-content-type-options", "nosniff")
      .header("referrer-policy", "same-origin");
    if (encoding) void reply.header("content-encoding", encoding);
    return reply.send(body);
  };
  const page = (request: FastifyRequest, reply: FastifyReply) => {
    const index = files?.get("index.html");
    if (!index)
      throw new WfError(
        "CONSOLE_NOT_BUILT",
        `service unavailable: the console is not built in ${dir}; run \`npm run build:console\` (npm start does it)`,
      );
    return send(request, reply, index, "no-cache");
  };

  app.get("/console", (_request, reply) => reply.redirect("/console/", 301));
  app.get("/console/", page);
  app.get("/console/*", (request, reply) => {
    const rest = (request.params as { "*": string })["*"];
    const file = files?.get(rest);
    if (file) return send(request, reply, file, rest.startsWith("assets/") ? IMMUTABLE : "no-cache");
    // A missing asset is a 404, not the app's page: a browser would run HTML as a script otherwise.
    if (rest.startsWith("assets/") || extname(rest) !== "") throw new WfError("NOT_FOUND", `no console file ${rest}`);
    return page(request, reply);
  });
}

/**
 * Reads the build; a build swapped in while it was being read (another checkout's start built it)
 * is read again: the swap is two renames, so a second read finds a whole one.
 */
function loadBuild(dir: string): Map<string, StaticFile> | null {
  for (let attempt = 1; ; attempt++) {
    try {
      return readBuild(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT" || attempt >= 3) throw err;
    }
  }
}

function readBuild(dir: string): Map<string, StaticFile> | null {
  if (!existsSync(join(dir, "index.html"))) return null;
  const files = new Map<string, StaticFile>();
  const walk = (sub: string) => {
    for (const name of readdirSync(join(dir, sub))) {
      const rel = sub === "" ? name : `${sub}/${name}`;
      if (name.startsWith(".")) continue;
      if (statSync(join(dir, rel)).isDirectory()) walk(rel);
      else {
        const raw = readFileSync(join(dir, rel));
        files.set(rel, { type: TYPES[extname(name)] ?? "application/octet-stream", raw });
      }
    }
  };
  walk("");
  return files;
}
