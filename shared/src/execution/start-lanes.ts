import { ALPHABET } from "./ids";

/**
 * Start commands go to one of START_LANES subjects (`<ns>.cmd.start.<lane>.<execId>`), each
 * consumed by a consumer of its own that executors serve in turn, so that one owner's backlog of
 * starts waits in its own lane, not ahead of everyone's (docs/architecture.md#start-lanes). An
 * execution's lane is named by the last character of its id, so whoever knows the id finds its
 * command; ids made for a start carry one of their owner's two lanes there (lane-backlog.ts).
 */
export const START_LANES = 16;

/** The lane an execution's start command goes to: any id has one (an id made elsewhere, by its last character). */
export function laneOf(executionId: string): number {
  const i = ALPHABET.indexOf(executionId.at(-1) ?? "");
  return i < 0 ? 0 : i % START_LANES;
}

/** The first lane of `ownerId`'s starts, where they all go while no lane has a backlog (FNV-1a). */
export function ownerLane(ownerId: string): number {
  return fnv1a(ownerId, 0x811c9dc5) % START_LANES;
}

/**
 * The two lanes `ownerId`'s starts may go to (`ownerLane` first, another second): a start goes to the one with the
 * smaller backlog (lane-backlog.ts), so that an owner sharing its first lane with another's flood takes its second.
 */
export function ownerLanes(ownerId: string): readonly [number, number] {
  const first = ownerLane(ownerId);
  return [first, (first + 1 + (fnv1a(ownerId, 0x050c5d1f) % (START_LANES - 1))) % START_LANES];
}

function fnv1a(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * `id` (made by newId or derivedId) put in `ownerId`'s lane: its last character names the lane,
 * and keeps one bit of what it was, so a derived id stays the same for the same seed and owner.
 */
export function inOwnerLane(id: string, ownerId: string): string {
  return inLane(id, ownerLane(ownerId));
}

/** `id` put in `lane`, as inOwnerLane does. */
export function inLane(id: string, lane: number): string {
  const kept = Math.floor(Math.max(0, ALPHABET.indexOf(id.at(-1) ?? "")) / START_LANES);
  return id.slice(0, -1) + ALPHABET[kept * START_LANES + lane];
}
