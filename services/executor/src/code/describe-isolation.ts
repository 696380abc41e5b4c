import type { Isolation } from "./types";

/** What a sandboxed step can see and do, in a sentence for the start-up log. */
export function describeIsolation(i: Isolation): string {
  const limits = `limits: ${i.limits.join(", ")}`;
  if (i.processes === "refused") {
    return `code steps in JavaScript and TypeScript run in isolates; the others are refused: the sandbox cannot start here (${i.reason ?? "unknown"})`;
  }
  if (i.processes === "unsafe") {
    return [
      `WITHOUT THE SANDBOX (WF_SANDBOX_UNSAFE=1; it cannot start here: ${i.reason ?? "unknown"}): steps see the host's files and network as their uid may`,
      `uids: ${i.uids === "per step" ? "one per running step" : "the runner's"}`,
      `seccomp filter: ${i.seccomp ? "on" : "off"}`,
      limits,
    ].join("; ");
  }
  return [
    `steps see, read-only: ${i.readable.join(", ")}, a minimal /etc and /dev`,
    "their own /step (with WF_ARTIFACTS_DIR), /tmp and /dev/shm, and their own processes only (a PID namespace each)",
    "network: none but the egress proxy (network: true or { allow })",
    "uids: one per running step, never the host's root",
    `seccomp filter: ${i.seccomp ? "on" : "off (unknown machine)"}`,
    limits,
  ].join("; ");
}
