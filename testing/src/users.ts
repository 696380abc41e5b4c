import { newId } from "@wf/shared/execution";
import { hashPasswordAt, type Plan, type ScryptParams, type UserStatus } from "@wf/shared/auth";
import type { UserRecord } from "@wf/shared/store";

/** What a test user may differ in: its plan (Pro unless told) and status (active unless told). */
interface TestUserOptions {
  plan?: Plan;
  status?: UserStatus;
}

/**
 * A user record for a test, written directly: a placeholder password hash, since scrypt's cost
 * belongs to the account tests, not to every test that needs an owner.
 */
export function testUser(over: TestUserOptions = {}): UserRecord {
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

/** Real scrypt at a cost of milliseconds: a fixture's login exercises the whole check without most of a core. */
const FIXTURE_SCRYPT: ScryptParams = { N: 2 ** 10, r: 8, p: 1 };

/** {@link testUser} with a password a console login accepts (the login checks at the hash's own parameters). */
export async function testUserWithPassword(password: string, over: TestUserOptions = {}): Promise<UserRecord> {
  return { ...testUser(over), passwordHash: await hashPasswordAt(password, FIXTURE_SCRYPT) };
}
