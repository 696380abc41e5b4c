import { openStore, type Store } from "@wf/shared/store";
import { connectToService, type ServiceConnection } from "./connection";

/**
 * The service's store, opened as the service opens it (MongoDB when MONGODB_URI is set, else
 * JetStream KV on the service's NATS): the admin commands read and write records directly.
 */
export async function withStore<T>(body: (store: Store, conn: ServiceConnection) => Promise<T>): Promise<T> {
  const conn = await connectToService();
  try {
    const { MONGODB_URI, MONGODB_DATABASE, WF_NAMESPACE } = conn.config;
    const store = MONGODB_URI
      ? await openStore({ kind: "mongodb", uri: MONGODB_URI, database: MONGODB_DATABASE, namespace: WF_NAMESPACE })
      : await openStore({ kind: "kv", nc: conn.nc, namespace: WF_NAMESPACE });
    try {
      return await body(store, conn);
    } finally {
      await store.close();
    }
  } finally {
    await conn.close();
  }
}
