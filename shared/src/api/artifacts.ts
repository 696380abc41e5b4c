import { z } from "zod";
import { Id, Timestamp } from "./common";

export const ArtifactParams = z.strictObject({ id: Id, aid: Id });

export const ArtifactView = z.object({
  id: z.string(),
  name: z.string(),
  path: z.string(),
  storageKey: z.string(),
  downloadUrl: z.string().describe("Signed, short-lived path of the file (not under /api/v1); no API key needed."),
  previewable: z.boolean(),
  size: z.number().int(),
  contentType: z.string(),
  stepName: z.string(),
  createdAt: Timestamp,
});
export type ArtifactView = z.infer<typeof ArtifactView>;

export const ArtifactList = z.object({ artifacts: z.array(ArtifactView), total: z.number().int() });

export const DownloadQuery = z.strictObject({
  expires: z
    .string({ error: "is missing: use the artifact's downloadUrl as given" })
    .regex(/^\d{1,12}$/, "must be epoch seconds")
    .describe("Epoch seconds after which the URL is refused."),
  sig: z
    .string({ error: "is missing: use the artifact's downloadUrl as given" })
    .min(1)
    .max(256)
    .describe("Hex HMAC-SHA256 of `<id>.<expires>`."),
});
