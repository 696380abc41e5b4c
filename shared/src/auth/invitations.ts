import type { Store } from "../store/port";
import { retryOnConflict } from "../store/retry-on-conflict";
import type { WorkflowRecord } from "../store/records";

/**
 * Sharing by email answers the same whether or not the email has an account: one without is kept as an invitation, a
 * `sharedWith` entry under this prefix and the email, which the account made for it later takes over. Told apart, the
 * sharing endpoint told any owner which emails have accounts here. No user id has a colon (ids.ts), so none is taken
 * for an invitation, nor the other way round.
 */
const PREFIX = "invite:";

/** The most users and invitations one workflow is shared with: each is a key of the workflows' index. */
export const MAX_SHAREES_PER_WORKFLOW = 100;

/** The `sharedWith` key of an invitation of `email` (lower case). */
export function invitationKey(email: string): string {
  return `${PREFIX}${email}`;
}

/** The email a `sharedWith` key invites; null for a user's id. */
export function invitedEmail(key: string): string | null {
  return key.startsWith(PREFIX) ? key.slice(PREFIX.length) : null;
}

/** Pages of the workflows inviting an email, read at a time. */
const PAGE = 100;

/**
 * Turns the invitations of `user`'s email into shares with the user, at the role each gave (a share the user has
 * already is kept as it is). Made when the account is made, and again at each of its console logins: an invitation a
 * crash left behind is taken then. Answers how many it took.
 */
export async function claimInvitations(store: Store, user: { id: string; email: string }): Promise<number> {
  const key = invitationKey(user.email);
  let claimed = 0;
  // Each claim takes the workflow off the invitation's list: the first page again, until none on it is claimed (an
  // index entry a moment behind its record lists one already taken).
  for (;;) {
    const page = await store.workflows.listVisible(key, { page: 1, size: PAGE });
    let taken = 0;
    for (const w of page.items) if (await claimOne(store, w.id, key, user.id)) taken += 1;
    if (taken === 0) return claimed;
    claimed += taken;
  }
}

function claimOne(store: Store, workflowId: string, key: string, userId: string): Promise<boolean> {
  // A save or another share moved first: read again.
  return retryOnConflict(async () => {
    const current = await store.workflows.get(workflowId);
    const role = current?.value.sharedWith[key];
    if (!current || role === undefined) return false;
    const { [key]: _taken, ...rest } = current.value.sharedWith;
    const next: WorkflowRecord = { ...current.value, sharedWith: { ...rest, [userId]: rest[userId] ?? role } };
    await store.workflows.update(next, current.version);
    return true;
  });
}
