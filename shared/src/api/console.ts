import { z } from "zod";
import { Timestamp } from "./common";

export const LoginBody = z.strictObject({
  email: z.string().min(1).max(320),
  password: z.string().min(1).max(1024),
});

const SessionUser = z.object({ id: z.string(), email: z.string(), plan: z.string() });

export const LoginResponse = z.object({
  csrfToken: z
    .string()
    .describe(
      "Send it as X-CSRF-Token on every state-changing console request of this session (the wf_csrf cookie holds it too).",
    ),
  expiresAt: Timestamp,
  user: SessionUser,
});

export const ConsoleSession = z.object({ expiresAt: Timestamp, user: SessionUser });
