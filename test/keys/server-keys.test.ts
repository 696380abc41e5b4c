import { createHash, createHmac, randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jetstreamManager } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/nats-core";
import { describe, expect, it, onTestFinished } from "vitest";
import { buildEdge } from "@wf/edge";
import type { Config } from "@wf/shared/config";
import { newId } from "@wf/shared/execution";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import {
  KeyFile,
  legacyKeyBucket,
  openOwnerSecretsBox,
  SecretBox,
  SERVER_KEYS,
  type ServerKeyKind,
} from "@wf/shared/secrets";
import { secretId, type SecretRecord, type WebhookRecord } from "@wf/shared/store";
import { startExecutor } from "@wf/executor";
import { definitionOf, run, testConfig, waitForStatus } from "../support/runtime";
import { testUser } from "@wf/testing";
import { useNatsServer } from "@wf/testing/nats-connection";

const nats = useNatsServer();

const KINDS = Object.keys(SERVER_KEYS) as ServerKeyKind[];

async function scratch(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "wf-keys-"));
  onTestFinished(() => rm(dir, { recursive: true, force: true, maxRetries: 2 }));
  return dir;
}

/** A namespace and data directory of its own; no key variable set. */
async function freshConfig(env: Record<string, string> = {}): Promise<Config> {
  return testConfig(nats.server, { WF_DATA_DIR: await scratch(), ...env });
}

async function platformOf(config: Config, name = "keys-test"): Promise<Platform> {
  const p = await openPlatform(config, name);
  onTestFinished(() => p.close());
  return p;
}

/** The keys as earlier versions kept them: in clear, in the KV bucket `<ns>_edge`. */
async function seedLegacyKeys(nc: NatsConnection, ns: string): Promise<Record<ServerKeyKind, Buffer>> {
  const kv = await new Kvm(nc).create(legacyKeyBucket(ns), { history: 1 });
  const keys = {} as Record<ServerKeyKind, Buffer>;
  for (const kind of KINDS) {
    keys[kind] = randomBytes(32);
    await kv.put(SERVER_KEYS[kind].legacyName, keys[kind].toString("hex"));
  }
  return keys;
}

async function keyFileOf(config: Config): Promise<KeyFile> {
  return KeyFile.parse(JSON.parse(await readFile(join(config.WF_DATA_DIR, "keys.json"), "utf8")));
}

async function storeSecret(
  p: Platform,
  box: SecretBox,
  ownerId: string,
  name: string,
  value: string,
): Promise<SecretRecord> {
  const id = secretId(ownerId, name);
  const record: SecretRecord = {
    id,
    ownerId,
    name,
    sealed: box.seal(value, id),
    createdAt: Date.now(),
    updatedAt: Date.now(),
  };
  await p.store.secrets.create(record);
  return record;
}

async function storeOwner(p: Platform): Promise<string> {
  const user = testUser();
  await p.store.users.create(user);
  return user.id;
}

const HMAC_YAML = `
name: hooked
steps:
  - { name: greet, type: transform, output: { text: "hi" } }
`;

async function storeHmacWebhook(p: Platform, ownerId: string, box: SecretBox, secret: string): Promise<WebhookRecord> {
  const now = Date.now();
  const definition = definitionOf(HMAC_YAML);
  const workflowId = newId();
  await p.store.workflows.create({
    id: workflowId,
    name: definition.name,
    ownerId,
    yaml: HMAC_YAML,
    definition,
    version: 1,
    sharedWith: {},
    createdAt: now,
    updatedAt: now,
  });
  const id = newId();
  const webhook: WebhookRecord = {
    id,
    ownerId,
    workflowId,
    name: "from CI",
    mode: "hmac",
    enabled: true,
    secretKey: box.seal(secret, id),
    apiKeyId: null,
    allowedSourceIps: [],
    variableMapping: null,
    replayProtection: false,
    createdAt: now,
    updatedAt: now,
  };
  await p.store.webhooks.create(webhook);
  return webhook;
}

/** Every message of every stream of the namespace: KV buckets, the object store, the streams. */
async function dumpNamespace(nc: NatsConnection, ns: string): Promise<Buffer[]> {
  const jsm = await jetstreamManager(nc);
  const out: Buffer[] = [];
  for await (const name of jsm.streams.names()) {
    if (!name.startsWith(`KV_${ns}_`) && !name.startsWith(`OBJ_${ns}_`) && !name.startsWith(`${ns}_`)) continue;
    const { state } = await jsm.streams.info(name);
    if (state.messages === 0) continue;
    for (let seq = state.first_seq; seq <= state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(name, { seq }).catch(() => null);
      if (m) out.push(Buffer.from(m.subject), Buffer.from(m.data));
    }
  }
  return out;
}

/** What a stored value could be, used as a key: its bytes, hex it holds, its hash (as a passphrase). */
function asKeys(value: Buffer): Buffer[] {
  const text = value.toString("utf8");
  const candidates = [createHash("sha256").update(text, "utf8").digest()];
  if (value.length === 32) candidates.push(Buffer.from(value));
  for (const hex of text.match(/[0-9a-f]{64}/g) ?? []) candidates.push(Buffer.from(hex, "hex"));
  return candidates;
}

function opensAny(key: Buffer, sealed: { text: string; context: string }[]): boolean {
  const box = new SecretBox(key);
  return sealed.some((s) => {
    try {
      box.open(s.text, s.context);
      return true;
    } catch {
      return false;
    }
  });
}

describe("server keys out of the store", () => {
  it("an upgrade re-seals every secret under the key file's key, erases the keys from `<ns>_edge`, and a second start changes nothing", async () => {
    const config = await freshConfig();
    const ns = config.WF_NAMESPACE;
    const seed = await platformOf(config, "seed");
    const legacy = await seedLegacyKeys(seed.nc, ns);
    const oldOwnerBox = new SecretBox(legacy.ownerSecrets);
    const alice = await storeOwner(seed);
    const bob = await storeOwner(seed);
    const values = { a1: `alpha-${newId()}`, a2: `beta-${newId()}`, b1: `gamma-${newId()}`, a3: `delta-${newId()}` };
    await storeSecret(seed, oldOwnerBox, alice, "a1", values.a1);
    await storeSecret(seed, oldOwnerBox, alice, "a2", values.a2);
    await storeSecret(seed, oldOwnerBox, bob, "b1", values.b1);
    // A crash halfway through an earlier run: this one is under the key file's key already.
    const half = await (async () => {
      const dir = config.WF_DATA_DIR;
      const fresh = {
        ownerSecrets: randomBytes(32).toString("hex"),
        webhookSecrets: randomBytes(32).toString("hex"),
        urlSigning: randomBytes(32).toString("hex"),
      };
      await writeFile(join(dir, "keys.json"), JSON.stringify(fresh), { mode: 0o600 });
      return new SecretBox(Buffer.from(fresh.ownerSecrets, "hex"));
    })();
    await storeSecret(seed, half, alice, "a3", values.a3);
    // Sealed under a key nobody has: it stays unreadable, and does not stop the upgrade.
    await storeSecret(seed, new SecretBox(randomBytes(32)), bob, "lost", "never-to-be-read");
    const hmacSecret = `hmac-${newId()}-0123456789`;
    const webhook = await storeHmacWebhook(seed, alice, new SecretBox(legacy.webhookSecrets), hmacSecret);

    // The upgraded services start.
    const p = await platformOf(config, "upgraded");
    const executor = await startExecutor(p);
    onTestFinished(() => executor.stop());
    const edge = await buildEdge(p);
    onTestFinished(() => edge.close());

    // No key is left in the store.
    const legacyKv = await new Kvm(p.nc).open(legacyKeyBucket(ns));
    for (const kind of KINDS) expect(await legacyKv.get(SERVER_KEYS[kind].legacyName), kind).toBeNull();
    expect((await (await jetstreamManager(p.nc)).streams.info(`KV_${legacyKeyBucket(ns)}`)).state.messages).toBe(0);

    // Every old secret opens under the new key, and the services use them.
    const keys = await keyFileOf(config);
    const box = new SecretBox(Buffer.from(keys.ownerSecrets, "hex"));
    for (const [owner, name, value] of [
      [alice, "a1", values.a1],
      [alice, "a2", values.a2],
      [bob, "b1", values.b1],
      [alice, "a3", values.a3],
    ] as const) {
      const stored = (await p.store.secrets.get(secretId(owner, name)))!.value;
      expect(box.open(stored.sealed, stored.id).toString("utf8"), name).toBe(value);
    }
    const id = await run(
      p,
      `
name: reads secrets
steps:
  - name: read
    type: transform
    output: { a1: "{{ $length(secrets.a1) }}", a3: "{{ $length(secrets.a3) }}" }
`,
      { ownerId: alice },
    );
    expect((await waitForStatus(p, id)).steps.read!.output).toEqual({ a1: values.a1.length, a3: values.a3.length });
    const body = JSON.stringify({ n: 1 });
    const trigger = await edge.inject({
      method: "POST",
      url: `/api/webhooks/${webhook.id}/trigger`,
      payload: body,
      headers: {
        "content-type": "application/json",
        "x-webhook-signature": `sha256=${createHmac("sha256", hmacSecret).update(body).digest("hex")}`,
      },
    });
    expect(trigger.statusCode, trigger.body).toBe(202);

    // A second start (another replica, a restart) finds nothing to do.
    const versions = async () =>
      Promise.all(
        [...(await p.store.secrets.listAll()), ...(await p.store.webhooks.listAll())].map(async (r) => [
          r.id,
          (await p.store.secrets.get(r.id))?.version ?? (await p.store.webhooks.get(r.id))?.version,
        ]),
      );
    const before = await versions();
    const again = await platformOf(config, "restarted");
    const executor2 = await startExecutor(again);
    await executor2.stop();
    await (await buildEdge(again)).close();
    expect(await versions()).toEqual(before);

    expect((await stat(join(config.WF_DATA_DIR, "keys.json"))).mode & 0o777).toBe(0o600);
  }, 60_000);

  it("a dump of every bucket, the object store and the streams holds no key: nothing in it opens a secret", async () => {
    const config = await freshConfig();
    const ns = config.WF_NAMESPACE;
    const seed = await platformOf(config, "seed");
    const legacy = await seedLegacyKeys(seed.nc, ns);
    const owner = await storeOwner(seed);
    await storeSecret(seed, new SecretBox(legacy.ownerSecrets), owner, "old_one", `old-${newId()}`);
    await storeHmacWebhook(seed, owner, new SecretBox(legacy.webhookSecrets), `hmac-${newId()}-0123456789`);
    const p = await platformOf(config);
    const executor = await startExecutor(p);
    onTestFinished(() => executor.stop());
    const edge = await buildEdge(p);
    onTestFinished(() => edge.close());
    // A secret set after the upgrade, and an execution that read it (snapshots, events, artifacts).
    await storeSecret(p, await openOwnerSecretsBox(p), owner, "new_one", `new-${newId()}`);
    const id = await run(
      p,
      `
name: artifacts and secrets
steps:
  - name: write
    type: code
    language: javascript
    input: { n: "{{ $length(secrets.new_one) }}" }
    code: |
      artifacts.write("out.txt", "some output");
      return input;
`,
      { ownerId: owner, monitoring: true },
    );
    expect((await waitForStatus(p, id)).status).toBe("COMPLETED");

    const sealed = [
      ...(await p.store.secrets.listAll()).map((s) => ({ text: s.sealed, context: s.id })),
      ...(await p.store.webhooks.listAll()).flatMap((w) =>
        w.secretKey === null ? [] : [{ text: w.secretKey, context: w.id }],
      ),
    ];
    // The keys do open them: the check below could fail.
    const keys = await keyFileOf(config);
    expect(opensAny(Buffer.from(keys.ownerSecrets, "hex"), sealed)).toBe(true);
    expect(opensAny(Buffer.from(keys.webhookSecrets, "hex"), sealed)).toBe(true);

    const dump = await dumpNamespace(p.nc, ns);
    expect(dump.length).toBeGreaterThan(20);
    const keyTexts = [...Object.values(keys), ...Object.values(legacy).map((k) => k.toString("hex"))];
    for (const value of dump) {
      const text = value.toString("utf8");
      for (const key of keyTexts) expect(text.includes(key)).toBe(false);
      for (const key of asKeys(value)) expect(opensAny(key, sealed)).toBe(false);
    }
  }, 60_000);

  it("replicas upgrading at once leave every secret under the one key they share", async () => {
    const config = await freshConfig();
    const seed = await platformOf(config, "seed");
    const legacy = await seedLegacyKeys(seed.nc, config.WF_NAMESPACE);
    const owner = await storeOwner(seed);
    const values = new Map<string, string>();
    for (let i = 0; i < 40; i++) {
      const value = `value-${i}-${newId()}`;
      values.set((await storeSecret(seed, new SecretBox(legacy.ownerSecrets), owner, `s_${i}`, value)).id, value);
    }
    const replicas = await Promise.all([
      platformOf(config, "replica-1"),
      platformOf(config, "replica-2"),
      platformOf(config, "replica-3"),
    ]);
    const boxes = await Promise.all(replicas.map((r) => openOwnerSecretsBox(r)));
    for (const record of await seed.store.secrets.listAll()) {
      for (const box of boxes) expect(box.open(record.sealed, record.id).toString("utf8")).toBe(values.get(record.id));
    }
    expect(
      await (
        await new Kvm(seed.nc).open(legacyKeyBucket(config.WF_NAMESPACE))
      ).get(SERVER_KEYS.ownerSecrets.legacyName),
    ).toBeNull();
  }, 60_000);

  it("a process given another key than the namespace uses does not start, and says what to set", async () => {
    const config = await freshConfig();
    await openOwnerSecretsBox(await platformOf(config));
    const other = await platformOf({ ...config, WF_SECRETS_KEY: "another-secrets-key-0123456789abcdef" });
    const err = (await openOwnerSecretsBox(other).catch((e: unknown) => e)) as Error;
    expect(err).toMatchObject({ code: "CONFIG_INVALID" });
    expect(err.message).toContain("WF_SECRETS_KEY");
    expect(err.message).toContain("the same");
    await expect(startExecutor(other)).rejects.toMatchObject({ code: "CONFIG_INVALID" });
    const edgeWithOtherKey = await platformOf({
      ...config,
      WF_WEBHOOK_SECRET_KEY: "another-webhook-key-0123456789abcdef",
    });
    await buildEdge(await platformOf(config)).then((app) => app.close());
    await expect(buildEdge(edgeWithOtherKey)).rejects.toThrow("WF_WEBHOOK_SECRET_KEY");
  }, 60_000);

  it("without a key variable, and a data directory it cannot write, says exactly what to set", async () => {
    const file = join(await scratch(), "a-file");
    await writeFile(file, "");
    const p = await platformOf(await freshConfig({ WF_DATA_DIR: join(file, "data") }));
    const err = (await openOwnerSecretsBox(p).catch((e: unknown) => e)) as Error;
    expect(err).toMatchObject({ code: "CONFIG_INVALID" });
    expect(err.message).toContain("Set WF_SECRETS_KEY");
  });
});
