import { newId } from "@wf/shared/execution";
import type { Plan, UserStatus } from "@wf/shared/auth";
import type { UserRecord } from "@wf/shared/store";

/**
 * A user record for a test, written directly: a placeholder password hash, since scrypt's cost
 * belongs to the account tests, not to every test that needs an owner.
 */
export function testUser(over: { plan?: Plan; status?: UserStatus } = {}): UserRecord {
  const now = Date.now();
  return {
    id: newId(),
    email: `${newId()}@example.com`,
    passwordHash: "scrypt$placeholder",
    plan: over.plan ?? "pro",
    status: over.status ?? "active",
    createdAt: now,
    updatedAt: now,
  };
}
