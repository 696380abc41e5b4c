import { z } from "zod";
import { WfError } from "../errors";
import { newId } from "../execution/ids";
import type { Store } from "../store/port";
import type { ApiKeyRecord, UserRecord } from "../store/records";
import { generateApiKey } from "./api-key";
import { retryOnConflict } from "../store/retry-on-conflict";
import { claimInvitations } from "./invitations";
import { hashPassword } from "./password";
import { Plan, UserStatus } from "./plans";
import { Scope } from "./scopes";
import { parseEgressAllowEntry } from "../config/egress-allow";

/**
 * Account operations shared by the operators' CLI and the tests (the console comes later).
 * Each validates its input with zod and fails with a WfError naming the field.
 */

export const NewUser = z.strictObject({
  email: z.email("must be an email address").transform((e) => e.trim().toLowerCase()),
  password: z.string().min(8, "must have at least 8 characters").max(1024, "must have at most 1024 characters"),
  plan: Plan,
});
export type NewUser = z.input<typeof NewUser>;

/** What may be shown of a user: everything but the password hash. */
export type UserView = Omit<UserRecord, "passwordHash">;

export function userView({ passwordHash: _hidden, ...user }: UserRecord): UserView {
  return user;
}

export async function createUser(store: Store, input: NewUser, now = Date.now()): Promise<UserRecord> {
  const { email, password, plan } = parseInput(NewUser, input);
  const user: UserRecord = {
    id: newId(now),
    email,
    passwordHash: await hashPassword(password),
    plan,
    status: "active",
    createdAt: now,
    updatedAt: now,
  };
  await store.users.create(user);
  await claimInvitations(store, user);
  return user;
}

const EgressEntry = z.string().superRefine((entry, ctx) => {
  const parsed = parseEgressAllowEntry(entry);
  if (typeof parsed === "string") ctx.addIssue({ code: "custom", message: parsed });
});

export const UserChange = z.strictObject({
  plan: Plan.optional(),
  status: UserStatus.optional(),
  /** The owner's narrowing of where its code steps may connect; an empty list removes it. */
  egressAllow: z.array(EgressEntry).optional(),
});
export type UserChange = z.input<typeof UserChange>;

/**
 * Changes a user's plan, status or egress list; takes effect on the next request of each of its keys, and the next code
 * step.
 */
export async function updateUser(store: Store, id: string, change: UserChange, now = Date.now()): Promise<UserRecord> {
  const { egressAllow, ...parsed } = parseInput(UserChange, change);
  return retryOnConflict(async () => {
    const current = await store.users.get(id);
    if (!current) throw new WfError("NOT_FOUND", `no user with id ${id}`);
    const { egressAllow: _previous, ...rest } = current.value;
    const narrowing =
      egressAllow === undefined ? current.value.egressAllow : egressAllow.length ? egressAllow : undefined;
    const next: UserRecord = {
      ...rest,
      ...definedOnly(parsed),
      ...(narrowing ? { egressAllow: narrowing } : {}),
      updatedAt: now,
    };
    await store.users.update(next, current.version);
    return next;
  });
}

export const NewApiKey = z.strictObject({
  ownerId: z.string().min(1),
  name: z.string().max(200, "must have at most 200 characters").default(""),
  scopes: z
    .array(Scope)
    .min(1, "needs at least one scope")
    .transform((s) => [...new Set(s)]),
  /** Epoch ms; null: never expires. */
  expiresAt: z.number().int().nullable().default(null),
});
export type NewApiKey = z.input<typeof NewApiKey>;

/**
 * The usable (unrevoked, unexpired) keys a user may hold: each has its plan's whole quota (docs/api.md#rate-limits), so
 * without a cap more keys were more requests and starts without end.
 */
export const MAX_USABLE_KEYS_PER_USER = 50;

/** Whether a key is neither revoked nor expired at `now`. */
export function keyUsable(key: Pick<ApiKeyRecord, "revokedAt" | "expiresAt">, now: number): boolean {
  return key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now);
}

/** Creates a key for an existing user; the returned `key` is the only time the secret exists in clear. */
export async function createApiKey(
  store: Store,
  input: NewApiKey,
  now = Date.now(),
): Promise<{ key: string; record: ApiKeyRecord }> {
  const parsed = parseInput(NewApiKey, input);
  if (parsed.expiresAt !== null && parsed.expiresAt <= now) {
    throw new WfError("VALIDATION_FAILED", "expiresAt: must be in the future", [
      { field: "expiresAt", message: "must be in the future" },
    ]);
  }
  if (!(await store.users.get(parsed.ownerId))) throw new WfError("NOT_FOUND", `no user with id ${parsed.ownerId}`);
  // Counted before the write: two concurrent creates may both pass it by one.
  const usable = (await store.apiKeys.listByOwner(parsed.ownerId)).filter((k) => keyUsable(k, now));
  if (usable.length >= MAX_USABLE_KEYS_PER_USER)
    throw new WfError(
      "CONFLICT",
      `an account holds at most ${MAX_USABLE_KEYS_PER_USER} usable API keys: revoke one it no longer needs first`,
    );
  const generated = generateApiKey();
  const record: ApiKeyRecord = {
    id: generated.keyId,
    name: parsed.name,
    ownerId: parsed.ownerId,
    scopes: parsed.scopes,
    secretHash: generated.secretHash,
    createdAt: now,
    expiresAt: parsed.expiresAt,
    revokedAt: null,
    lastUsedAt: null,
  };
  await store.apiKeys.create(record);
  return { key: generated.key, record };
}

/** Revokes a key; revoking it again keeps the first revocation time. */
export async function revokeApiKey(store: Store, id: string, now = Date.now()): Promise<ApiKeyRecord> {
  return retryOnConflict(async () => {
    const current = await store.apiKeys.get(id);
    if (!current) throw new WfError("NOT_FOUND", `no API key with id ${id}`);
    if (current.value.revokedAt !== null) return current.value;
    const next = { ...current.value, revokedAt: now };
    await store.apiKeys.update(next, current.version);
    return next;
  });
}

function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const details = parsed.error.issues.map((i) => ({ field: i.path.join("."), message: i.message }));
  throw new WfError("VALIDATION_FAILED", details.map((d) => `${d.field}: ${d.message}`).join("; "), details);
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
