import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { describe, expect, it, onTestFinished } from "vitest";
import { openStore } from "../store/open-store";
import { startNatsServer } from "@wf/testing";
import { STORE_TYPES } from "./permissions";

describe("NATS permissions", () => {
  it("know every bucket the KV store opens: a record type added there must be granted here", async () => {
    const server = await startNatsServer();
    onTestFinished(() => server.stop());
    const nc = await connect({ servers: server.url });
    onTestFinished(() => nc.close());
    const store = await openStore({ kind: "kv", nc, namespace: "perms" });
    await store.close();
    const made: string[] = [];
    for await (const name of (await jetstreamManager(nc)).streams.names()) made.push(name);
    const known = [...STORE_TYPES.flatMap((t) => [`KV_perms_${t}`, `KV_perms_${t}_idx`]), "KV_perms_user_emails"];
    expect(made.sort()).toEqual(known.sort());
  });
});
