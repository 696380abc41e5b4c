import type { ToolCallRecord } from "@wf/shared/execution";
import { jsonBytes } from "../../result-limits";
import type { StepAt } from "../step-kind";
import type { AiStepHost } from "./host";

/** Tool arguments and results are cut to this in the step's record (the model sees them whole). */
const RECORDED_CHARS = 8 * 1024;

/** An agent step's record of its tool calls (`toolCalls`), kept within the limit of their bytes. */
export class ToolRecords {
  private readonly list: ToolCallRecord[];
  private bytes: number;

  /** `resumed`: the attempt goes on from a debugger's pause inside it, so its calls so far stay. */
  constructor(
    private readonly host: AiStepHost,
    private readonly at: StepAt,
    resumed: boolean,
  ) {
    this.list = resumed ? (at.state.toolCalls ?? []) : [];
    at.state.toolCalls = this.list;
    this.bytes = resumed ? jsonBytes(this.list) : 0;
  }

  get count(): number {
    return this.list.length;
  }

  /** Records a call, only named once the step's calls pass the limit, and emits it whole as `step_tool_call`. */
  add(record: ToolCallRecord): void {
    const limit = this.host.committer.limits.toolCallBytes;
    this.bytes += jsonBytes(record);
    this.list.push(
      this.bytes > limit
        ? { ...record, arguments: null, result: `[not kept: this step's tool calls passed ${limit} bytes]` }
        : record,
    );
    this.host.committer.emit("step_tool_call", this.at.path, { ...record, attempt: this.at.state.attempts });
  }
}

/** A call's arguments as recorded: the object when it is small, else its text cut. */
export function recordedArguments(text: string, args: Record<string, unknown> | null): unknown {
  return args !== null && jsonBytes(args) <= RECORDED_CHARS ? args : cut(args === null ? text : JSON.stringify(args));
}

export function cut(text: string): string {
  return text.length > RECORDED_CHARS ? `${text.slice(0, RECORDED_CHARS)}… (${text.length} characters)` : text;
}
