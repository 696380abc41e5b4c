import { randomBytes } from "node:crypto";
import { MongoClient } from "mongodb";
import { afterAll, describe } from "vitest";
import { runStoreContract } from "./contract";
import { openStore } from "./open-store";

const uri = process.env.MONGODB_URI;
const SKIPPED = "MongoDB adapter (skipped: MONGODB_URI is not set; no MongoDB server can be installed on this machine)";
if (!uri) console.warn(SKIPPED);

/** One database per run, dropped at the end; one namespace (collection prefix) per test. */
const database = `wf_store_test_${randomBytes(6).toString("hex")}`;
let namespaces = 0;

describe.skipIf(!uri)(uri ? "MongoDB adapter" : SKIPPED, () => {
  afterAll(async () => {
    const client = await MongoClient.connect(uri!);
    try {
      await client.db(database).dropDatabase();
    } finally {
      await client.close();
    }
  });

  runStoreContract("MongoDB", async () => {
    const store = await openStore({ kind: "mongodb", uri: uri!, database, namespace: `t${++namespaces}` });
    return { store, cleanup: () => store.close() };
  });
});
