import { toToken } from "@wf/shared/nats";

/** Workflows run from a file have no stored record: their id is derived from the name. */
export function cliWorkflowId(name: string): string {
  return `cli-${toToken(name)}`.slice(0, 128);
}
