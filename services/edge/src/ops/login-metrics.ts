import { Counter } from "@wf/shared/metrics";

const logins = new Counter({
  name: "wf_console_logins_total",
  help: "Console logins answered, by outcome: ok, wrong (email or password), inactive (account), throttled (LOGIN_THROTTLED, password not checked), busy (PASSWORD_CHECKS_BUSY, not checked).",
  labelNames: ["outcome"],
  registers: [],
});

const hashes = new Counter({
  name: "wf_password_hashes_total",
  help: "Password hashes (scrypt) the edge ran: console logins' checks, unknown emails' included, and password changes'.",
  registers: [],
});

export const loginMetrics = [logins, hashes];

export type LoginAnswer = "ok" | "wrong" | "inactive" | "throttled" | "busy";

export const countLogin = (outcome: LoginAnswer): void => logins.inc({ outcome });
export const countPasswordHash = (): void => hashes.inc();
