/**
 * Prints nats-server's users and permissions for a namespace (default `wf`), as
 * deploy/nats/auth.conf holds them: `npx tsx shared/scripts/write-nats-auth.ts [ns] > auth.conf`.
 */
import { fileURLToPath } from "node:url";
import { renderAuthConf } from "../src/nats/auth-conf";

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ns = process.argv[2] ?? "wf";
  if (!/^[A-Za-z0-9_-]+$/.test(ns)) {
    console.error(`namespace \`${ns}\` must be letters, digits, '_' or '-' (WF_NAMESPACE)`);
    process.exit(2);
  }
  process.stdout.write(renderAuthConf(ns));
}
