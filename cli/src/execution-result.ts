import { endedStatus, type ExecutionEvent } from "@wf/shared/execution";
import { openConfiguredStore, type Store } from "@wf/shared/store";
import type { ServiceConnection } from "./connection";
import { truncate } from "./format-event";

const RESULT_CHARS = 2000;

export interface ExecutionResult {
  executionId: string;
  status: string;
  output: unknown;
  error: string | null;
}

/**
 * The result as the service recorded it. The snapshot is written before its events are
 * published, so once the terminal event is here the record is final. If the store cannot be
 * read, the terminal event carries the same status, output and error.
 */
export async function readResult(conn: ServiceConnection, end: ExecutionEvent): Promise<ExecutionResult> {
  const fromEvent: ExecutionResult = {
    executionId: end.executionId,
    status: endedStatus(end.type) ?? "FAILED",
    output: end.data.output ?? null,
    error: typeof end.data.error === "string" ? end.data.error : null,
  };
  let store: Store | undefined;
  try {
    store = await openConfiguredStore(conn.config, conn.nc);
    const record = await store.executions.get(end.executionId);
    if (!record) return fromEvent;
    const snap = record.value;
    return { executionId: snap.id, status: snap.status, output: snap.output ?? null, error: snap.error };
  } catch (err) {
    console.error(
      `wf: cannot read the execution's record (${(err as Error).message}); showing its last event's result`,
    );
    return fromEvent;
  } finally {
    await store?.close().catch(() => undefined);
  }
}

/** `output: <pretty JSON>` for a completed execution, `error: …` otherwise; cut at ~2000 chars. */
export function formatResult(result: ExecutionResult): string {
  if (result.status !== "COMPLETED") return `error: ${result.error ?? `execution ${result.status}`}`;
  const pretty = JSON.stringify(result.output, null, 2) ?? "null";
  return pretty.length > RESULT_CHARS
    ? `output: ${truncate(pretty, RESULT_CHARS)}\n(output cut at ${RESULT_CHARS} of ${pretty.length} chars)`
    : `output: ${pretty}`;
}
