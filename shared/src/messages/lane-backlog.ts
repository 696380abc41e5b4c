import { z } from "zod";
import { START_LANES } from "../execution/start-lanes";

/**
 * `<ns>.lanes.backlog`, core NATS, twice a second from each executor while a start lane has a backlog (and once more
 * when none has): the starts waiting in each lane, as its consumer last said. Whoever makes an execution's id for a
 * start puts it in the owner's lane with the smaller backlog (docs/architecture.md#start-lanes).
 */
export const LaneBacklogReport = z.object({
  /** The executor process, made up as it starts: each one's newest report is kept. */
  executor: z.string().min(1).max(64),
  /** Starts waiting, by lane. */
  pending: z.array(z.number().int().nonnegative()).length(START_LANES),
});
export type LaneBacklogReport = z.infer<typeof LaneBacklogReport>;
