import type { JetStreamManager, StoredMsg } from "@nats-io/jetstream";
import { streamNames } from "./subjects";

/**
 * The last command stored on `subject` of namespace `ns`'s command stream: a work queue keeps a command until its
 * consumer acknowledges it, so one found here still waits (or is in hand).
 */
export function queuedCommand(jsm: JetStreamManager, ns: string, subject: string): Promise<StoredMsg | null> {
  return jsm.streams.getMessage(streamNames(ns).cmd, { last_by_subj: subject });
}
