import { z } from "zod";
import { Timestamp } from "./common";

export const LoginBody = z.strictObject({
  email: z.string().min(1).max(320),
  password: z.string().min(1).max(1024),
});

export const LoginResponse = z.object({
  csrfToken: z.string().describe("Send it as X-CSRF-Token on every state-changing console request of this session."),
  expiresAt: Timestamp,
  user: z.object({ id: z.string(), email: z.string(), plan: z.string() }),
});
