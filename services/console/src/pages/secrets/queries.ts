import { api } from "../../api/client";
import type { SecretList } from "../../api/types";

/** The caller's secrets, listed by name: the secrets page's list, and the editor's completion after `secrets.`. */
export const secretsQuery = {
  queryKey: ["secrets"],
  queryFn: ({ signal }: { signal: AbortSignal }) => api<SecretList>("GET", "/api/console/secrets", undefined, signal),
};
