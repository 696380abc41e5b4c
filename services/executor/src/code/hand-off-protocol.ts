import type { Socket } from "node:net";

/**
 * Between a sandbox runner and the executor that forked it, over their IPC channel: the runner
 * hands over its JavaScript host's socket (`js-host`, the socket as the message's handle) and
 * says when that host ended; the executor asks for a host when it has none and has one killed
 * that it found stuck.
 */
export type HandOffMessage = { t: "js-host"; gen: number } | { t: "js-host-ended"; gen: number; reason: string };
export type HandOffRequest =
  /** `seen`: the last host the client was handed (0: none); one handed after it is on its way already. */
  { t: "js-host-wanted"; seen: number } | { t: "js-host-kill"; gen: number; why: string };

/** The runner's end of the IPC channel. */
export interface HandOffChannel {
  send(msg: HandOffMessage, handle?: Socket): void;
  onRequest(listener: (msg: HandOffRequest) => void): void;
}
