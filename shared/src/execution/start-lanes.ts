import { ALPHABET } from "./ids";

/**
 * Start commands go to one of START_LANES subjects (`<ns>.cmd.start.<lane>.<execId>`), each
 * consumed by a consumer of its own that executors serve in turn, so that one owner's backlog of
 * starts waits in its own lane, not ahead of everyone's (docs/architecture.md#start-lanes). An
 * execution's lane is named by the last character of its id, so whoever knows the id finds its
 * command; ids made for a start carry their owner's lane there.
 */
export const START_LANES = 16;

/** The lane an execution's start command goes to: any id has one (an id made elsewhere, by its last character). */
export function laneOf(executionId: string): number {
  const i = ALPHABET.indexOf(executionId.at(-1) ?? "");
  return i < 0 ? 0 : i % START_LANES;
}

/** The lane of `ownerId`'s starts: all of one owner's in one lane, owners spread over the lanes (FNV-1a). */
export function ownerLane(ownerId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < ownerId.length; i++) h = Math.imul(h ^ ownerId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % START_LANES;
}

/**
 * `id` (made by newId or derivedId) put in `ownerId`'s lane: its last character names the lane,
 * and keeps one bit of what it was, so a derived id stays the same for the same seed and owner.
 */
export function inOwnerLane(id: string, ownerId: string): string {
  const kept = Math.floor(Math.max(0, ALPHABET.indexOf(id.at(-1) ?? "")) / START_LANES);
  return id.slice(0, -1) + ALPHABET[kept * START_LANES + ownerLane(ownerId)];
}
