import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { ExecutionSnapshot } from "@wf/shared/execution";
import type { Versioned } from "@wf/shared/store";
import type { HeaderDoc } from "./route";

/**
 * The header a read of an execution answers with its record's revision, and a client sends back
 * with its next read of that execution (through any edge): the answer is then never older
 * (docs/api.md#executions, docs/architecture.md#storage).
 */
export const REVISION_HEADER = "x-execution-revision";

/** The header as a route reads it (`headers`) and answers it (a response's `headers`). */
export const REVISION_DOC: Record<string, HeaderDoc> = {
  "X-Execution-Revision": {
    description:
      "Request: the X-Execution-Revision of your last answer for this execution; the answer is then never older. " +
      "Response: the revision of the execution record answered.",
    schema: { type: "integer" },
  },
};

/** Stream sequences are whole numbers below 2^53; anything else is no revision. */
const Revision = z
  .string()
  .regex(/^\d{1,15}$/)
  .transform(Number);

/** The revision the client last saw, or 0: a malformed one is ignored rather than refused (the answers are fixed). */
export function revisionSeen(request: FastifyRequest): number {
  const parsed = Revision.safeParse(request.headers[REVISION_HEADER]);
  return parsed.success ? parsed.data : 0;
}

/** Answers with the revision of the execution read, for the client to send back. */
export function answerRevision(reply: FastifyReply, execution: Versioned<ExecutionSnapshot>): void {
  void reply.header(REVISION_HEADER, String(execution.version));
}
