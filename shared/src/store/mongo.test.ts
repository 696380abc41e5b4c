import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { afterAll, describe } from "vitest";
import { startCommandsIn } from "@wf/testing";
import { useNatsConnection } from "@wf/testing/nats-connection";
import { runStoreContract } from "@wf/testing/store-contract";
import { openStore } from "./open-store";

const uri = process.env.MONGODB_URI;
const SKIPPED = "MongoDB adapter (skipped: MONGODB_URI is not set; no MongoDB server can be installed on this machine)";
if (!uri) console.warn(SKIPPED);

/** One database per run, dropped at the end; one namespace (collection prefix) per test. */
const database = `wf_store_test_${randomBytes(6).toString("hex")}`;
let namespaces = 0;

describe.skipIf(!uri)(uri ? "MongoDB adapter" : SKIPPED, () => {
  // Start commands go where they go in production, to JetStream: the contract publishes some.
  const nats = useNatsConnection();

  afterAll(async () => {
    const client = await MongoClient.connect(uri!);
    try {
      await client.db(database).dropDatabase();
    } finally {
      await client.close();
    }
  });

  runStoreContract("MongoDB", async () => {
    const namespace = `t${++namespaces}`;
    const store = await openStore({ kind: "mongodb", uri: uri!, database, namespace });
    const commands = startCommandsIn(nats.nc, namespace);
    const cleanup = async () => {
      await store.close();
      await commands.cleanup();
    };
    return { store, starts: { ns: namespace, publisher: commands.publisher, queued: commands.queued }, cleanup };
  });
});
