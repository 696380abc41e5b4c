import { openConfiguredStore, type Store } from "@wf/shared/store";
import { connectToService, type ServiceConnection } from "./connection";

/**
 * The service's store, opened as the service opens it (MongoDB when MONGODB_URI is set, else
 * JetStream KV on the service's NATS): the admin commands read and write records directly.
 */
export async function withStore<T>(body: (store: Store, conn: ServiceConnection) => Promise<T>): Promise<T> {
  const conn = await connectToService();
  try {
    const store = await openConfiguredStore(conn.config, conn.nc);
    try {
      return await body(store, conn);
    } finally {
      await store.close();
    }
  } finally {
    await conn.close();
  }
}
