import { AnswerError } from "../errors";
import { Places } from "../places";

/**
 * The artifact downloads of each owner's files this edge process serves at once, whoever holds their signed URLs: a
 * download holds a connection, a few chunks of its file and a read of the store per chunk, however slowly its client
 * reads, so an owner may have only `perOwner` in progress (docs/api.md#artifacts-and-downloads); past it a download is
 * refused with 429 `DOWNLOADS_LIMIT`, and a place comes free when one of the owner's downloads ends.
 */
export function openDownloads(perOwner: number): Places {
  return new Places(
    perOwner,
    (open, limit) =>
      new AnswerError(
        "DOWNLOADS_LIMIT",
        `${open} downloads of this owner's artifacts are in progress on this server, as many as one owner's may be (WF_ARTIFACT_DOWNLOADS): retry once one has finished`,
        { openDownloads: open, limit },
      ),
  );
}
