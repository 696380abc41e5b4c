import { DownloadQuery, ErrorBody, IdParams } from "@wf/shared/api";
import { WfError } from "@wf/shared/errors";
import { refuse } from "../auth/authenticate";
import { contentDisposition, parseRange } from "../downloads/range";
import { defineRoute, type Route } from "./route";

/** The one 401 of a download, whichever check failed: the URL takes no key, so the answer does not ask for one. */
const DOWNLOAD_REFUSED =
  "unauthorized: this download URL's signature is not valid or has expired; ask for the artifact again for a fresh downloadUrl";

export const downloadRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/artifacts/{id}/download",
    operationId: "downloadArtifact",
    summary: "Download an artifact's file through the signed URL of its downloadUrl (no API key); supports one Range",
    tag: "artifacts",
    auth: "signed-url",
    params: IdParams,
    query: DownloadQuery,
    status: 200,
    responses: {
      200: { description: "The whole file.", binary: true },
      206: { description: "The requested byte range (Content-Range).", binary: true },
      404: { description: "The artifact or its file is gone.", schema: ErrorBody },
      416: { description: "The range lies outside the file (Content-Range: bytes */<size>).", schema: ErrorBody },
      429: {
        description:
          "As many downloads of the artifact owner's files are in progress on this server as one owner's may be.",
        schema: ErrorBody,
      },
    },
    async handler({ params, query }, { ctx, request, reply }) {
      const now = ctx.clock();
      const check = ctx.signer.check(params.id, Number(query.expires), query.sig, now);
      if (check !== "ok") return refuse(ctx, request, check, null, DOWNLOAD_REFUSED);
      const artifact = await ctx.store.artifacts.get(params.id);
      if (!artifact) throw new WfError("NOT_FOUND", `artifact ${params.id} not found`);
      // Given back when the answer has ended, sent or broken off.
      const release = ctx.openDownloads.take(artifact.value.ownerId);
      reply.raw.once("close", release).once("finish", release);
      const file = await ctx.files.open(artifact.value.storageKey);
      if (!file) throw new WfError("NOT_FOUND", `artifact ${params.id} not found`);
      // The object's own size, which the bytes streamed are checked against, for Content-Length and the range.
      const { size } = file;
      const { contentType, name } = artifact.value;
      const range = parseRange(single(request.headers.range), size);
      if (range.kind === "unsatisfiable") {
        void reply.header("content-range", `bytes */${size}`);
        throw new WfError("RANGE_NOT_SATISFIABLE", `range not satisfiable: the file has ${size} bytes`);
      }
      void reply.headers({
        "content-type": contentType,
        "content-disposition": contentDisposition(name),
        "accept-ranges": "bytes",
      });
      if (range.kind === "full") {
        void reply.header("content-length", size);
        return file.read();
      }
      void reply.code(206).headers({
        "content-length": range.end - range.start + 1,
        "content-range": `bytes ${range.start}-${range.end}/${size}`,
      });
      return file.read(range);
    },
  }),
];

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(",") : value;
}
