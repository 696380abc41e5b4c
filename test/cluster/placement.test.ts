import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ArtifactFiles } from "@wf/shared/artifacts";
import { loadConfig } from "@wf/shared/config";
import { newId } from "@wf/shared/execution";
import { connectNats, ensureStreams, openKvBucket, streamNames, streamPlacement } from "@wf/shared/nats";
import { openPlatform } from "@wf/shared/runtime";
import { startNatsCluster, waitFor, type NatsClusterHandle } from "@wf/testing";
import { useNatsServer } from "@wf/testing/nats-connection";

describe("streams and buckets follow the cluster", () => {
  let cluster: NatsClusterHandle;
  let nc: NatsConnection;
  beforeAll(async () => {
    cluster = await startNatsCluster(3, `place-${newId().slice(0, 8)}`);
    nc = await connectNats(cluster.url, "placement-test");
  }, 60_000);
  afterEach(({ task }) => {
    // A test that times out says nothing of the cluster it waited on.
    if (task.result?.state === "fail") console.error(`cluster after "${task.name}":\n${cluster.logTails()}`);
  });
  afterAll(async () => {
    await nc?.close();
    await cluster?.stop();
  });

  it("WF_REPLICAS=auto keeps three copies on a cluster: streams, record and index buckets, artifacts", async () => {
    const ns = `p${newId().slice(0, 8)}`;
    const platform = await openPlatform(
      loadConfig({ NATS_URL: cluster.url, WF_NAMESPACE: ns, LOG_LEVEL: "silent" }),
      "placement-test",
    );
    try {
      expect(platform.placement.replicas).toBe(3);
      await ArtifactFiles.open(platform.nc, ns, platform.placement, platform.store);
      const jsm = await jetstreamManager(nc);
      const names = (await jsm.streams.names().next()).filter((n) => n.includes(ns));
      expect(names).toEqual(
        expect.arrayContaining([
          streamNames(ns).cmd,
          streamNames(ns).evt,
          `KV_${ns}_executions`,
          `KV_${ns}_executions_idx`,
          `OBJ_${ns}_artifacts`,
        ]),
      );
      for (const name of names) {
        const info = await jsm.streams.info(name);
        expect({ name, replicas: info.config.num_replicas }).toEqual({ name, replicas: 3 });
        // The leader and its followers (a stream just made may not have elected its leader yet: all three are then
        // followers), as the cluster reports them: a follower just made may be missing from the first report.
        const copiesOf = async (): Promise<number> => {
          const { cluster } = await jsm.streams.info(name);
          return new Set([cluster?.leader, ...(cluster?.replicas ?? []).map((r) => r.name)].filter(Boolean)).size;
        };
        const copies = await waitFor(async () => ((await copiesOf()) === 3 ? 3 : undefined), {
          what: `three copies of ${name}`,
        }).catch(copiesOf);
        expect({ name, copies }).toEqual({ name, copies: 3 });
      }
    } finally {
      await platform.close();
    }
  }, 60_000);

  it("raising the replicas of existing streams and buckets reconciles them at the next start", async () => {
    const ns = `r${newId().slice(0, 8)}`;
    const jsm = await jetstreamManager(nc);
    const one = streamPlacement({ WF_REPLICAS: 1 }, nc);
    await ensureStreams(jsm, ns, { eventsMaxAgeMs: 3_600_000, placement: one });
    await openKvBucket(nc, `${ns}_sessions`, { history: 1, ttlMs: 60_000 }, one);
    expect((await jsm.streams.info(streamNames(ns).cmd)).config.num_replicas).toBe(1);

    const three = streamPlacement({ WF_REPLICAS: "auto" }, nc);
    await ensureStreams(jsm, ns, { eventsMaxAgeMs: 7_200_000, placement: three });
    await openKvBucket(nc, `${ns}_sessions`, { history: 1, ttlMs: 120_000 }, three);
    const cmd = await jsm.streams.info(streamNames(ns).cmd);
    const evt = await jsm.streams.info(streamNames(ns).evt);
    const sessions = await jsm.streams.info(`KV_${ns}_sessions`);
    expect([cmd.config.num_replicas, evt.config.num_replicas, sessions.config.num_replicas]).toEqual([3, 3, 3]);
    expect(evt.config.max_age).toBe(7_200_000 * 1_000_000);
    expect(sessions.config.max_age).toBe(120_000 * 1_000_000);
  }, 60_000);
});

describe("streams and buckets on a lone server", () => {
  const nats = useNatsServer();

  it("auto is one copy, and three copies are refused with what to set", async () => {
    const nc = await connectNats(nats.server.url, "placement-test");
    try {
      expect(streamPlacement({ WF_REPLICAS: "auto" }, nc).replicas).toBe(1);
      const jsm = await jetstreamManager(nc);
      const ns = `s${newId().slice(0, 8)}`;
      await expect(
        ensureStreams(jsm, ns, { eventsMaxAgeMs: 3_600_000, placement: { replicas: 3, tags: [] } }),
      ).rejects.toThrow(/WF_REPLICAS/);
      await expect(openKvBucket(nc, `${ns}_b`, { history: 1 }, { replicas: 3, tags: [] })).rejects.toThrow(
        /WF_REPLICAS/,
      );
    } finally {
      await nc.close();
    }
  });
});
