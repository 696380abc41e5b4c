export { SCOPES, Scope } from "./scopes";
export {
  PLANS,
  Plan,
  PLAN_ARTIFACT_BYTES_PER_DAY,
  PLAN_CODE_TIMEOUT_SECONDS,
  PLAN_LIMITS,
  PLAN_WORKFLOWS,
  USER_STATUSES,
  UserStatus,
  type PlanLimits,
} from "./plans";
export { AUDIT_REASONS, AuditReason } from "./audit-reasons";
export {
  generateApiKey,
  parseApiKey,
  hashSecret,
  secretMatches,
  DECOY_SECRET_HASH,
  type ParsedApiKey,
  type GeneratedApiKey,
} from "./api-key";
export { hashPassword, hashPasswordAt, verifyPassword, DECOY_PASSWORD_HASH, type ScryptParams } from "./password";
export {
  createUser,
  updateUser,
  createApiKey,
  MAX_USABLE_KEYS_PER_USER,
  keyUsable,
  revokeApiKey,
  userView,
  NewUser,
  UserChange,
  NewApiKey,
  type UserView,
} from "./accounts";
export { claimInvitations, invitationKey, invitedEmail, MAX_SHAREES_PER_WORKFLOW } from "./invitations";
export { roleOn, startRefusal, starterOf, type Starter, type WorkflowRole } from "./start-right";
