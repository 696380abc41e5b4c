import { SERVICE_USERS, servicePermissions, type Permissions } from "./permissions";

/** The operator's user (the wf CLI's admin commands, NATS tools): every subject. */
export const ADMIN_USER = "admin";

/** The environment variable of nats-server that holds a user's password in auth.conf. */
export function passwordVariable(user: string): string {
  return `WF_NATS_${user.toUpperCase()}_PASSWORD`;
}

/**
 * nats-server's `authorization` block for namespace `ns`: a user per service with its
 * permissions (servicePermissions), and the admin. `password` gives each user's password as a
 * configuration value: by default a reference to the server's environment, so that the file
 * holds no secret.
 */
export function renderAuthConf(
  ns: string,
  password: (user: string) => string = (user) => `$${passwordVariable(user)}`,
): string {
  const permissions = servicePermissions(ns);
  const users = [
    ...SERVICE_USERS.map((user) => userBlock(user, password(user), permissions[user])),
    userBlock(ADMIN_USER, password(ADMIN_USER), null),
  ];
  return [
    `# NATS users of the workflow service, namespace \`${ns}\`. Generated from shared/src/nats/permissions.ts by`,
    `#   npx tsx shared/scripts/write-nats-auth.ts ${ns} > deploy/nats/auth.conf`,
    "# Passwords come from nats-server's environment (WF_NATS_<USER>_PASSWORD); each service connects",
    "# with NATS_USER and NATS_PASSWORD set to its own.",
    "authorization {",
    "  users: [",
    ...users,
    "  ]",
    "}",
    "",
  ].join("\n");
}

function userBlock(user: string, password: string, permissions: Permissions | null): string {
  const lines = [`    {`, `      user: ${user}`, `      password: ${password}`];
  if (permissions === null) lines.push("      # no permissions block: every subject (the operator's user)");
  else {
    lines.push("      permissions: {");
    lines.push(`        publish: { allow: ${list(permissions.publish)} }`);
    lines.push(`        subscribe: { allow: ${list(permissions.subscribe)} }`);
    if (permissions.responses) lines.push("        allow_responses: true");
    lines.push("      }");
  }
  lines.push("    }");
  return lines.join("\n");
}

function list(subjects: string[]): string {
  // Quoted: an unquoted `$JS...` would be read as a variable reference.
  return `[\n${subjects.map((s) => `          ${JSON.stringify(s)}`).join("\n")}\n        ]`;
}
