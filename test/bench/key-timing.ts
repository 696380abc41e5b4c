/**
 * Whether an API key's id shows through timing: a key with an unknown id against a known id with a
 * wrong secret, timed in the same rounds in alternating order (ABBA) so that drift and other load
 * fall on both alike: verifyKey, the store's read alone, the server's answer alone (the baseline, not
 * decoded) and the whole 401 through an edge. Figures in microseconds; ratios are unknown / wrong
 * secret (docs/operations.md#benchmarks).
 */
import { performance } from "node:perf_hooks";
import { randomBytes } from "node:crypto";
import { createApiKey, DECOY_SECRET_HASH, secretMatches } from "@wf/shared/auth";
import { newId } from "@wf/shared/execution";
import { openPlatform, type Platform } from "@wf/shared/runtime";
import type { NatsServerHandle } from "@wf/testing";
import { buildEdge, verifyKey } from "@wf/edge";
import { testConfig } from "../support/runtime";
import { median, round, summarize, type Summary } from "./stats";

export interface KeyTimingSizes {
  /** Untimed rounds first (JIT, connections, the server's caches). */
  warmup: number;
  /** Timed rounds of verifyKey and of the store reads (each times both sides). */
  rounds: number;
  /** Timed rounds of the whole 401 (each writes two audit records). */
  httpRounds: number;
}

export const KEY_TIMING_SIZES: KeyTimingSizes = { warmup: 500, rounds: 5_000, httpRounds: 2_000 };
export const KEY_TIMING_QUICK_SIZES: KeyTimingSizes = { warmup: 200, rounds: 1_000, httpRounds: 400 };

/** One side against the other, timed in the same rounds. */
export interface PairedTiming {
  unknownUs: Summary;
  knownUs: Summary;
  /**
   * The median of the rounds' differences (unknown minus known, each round timing both): negative
   * when the unknown id answers faster. Per round, so that what slows a stretch of rounds down
   * (other processes on the cores) falls on both sides of each difference.
   */
  differenceUs: number;
  /** Median of unknown / median of known. */
  ratio: number;
}

export interface KeyTimingResult {
  sizes: KeyTimingSizes;
  /** verifyKey: unknown id / known id with a wrong secret. */
  verify: PairedTiming;
  /** The store read of a missing / an existing key record. */
  storeRead: PairedTiming;
  /** Baseline: the server's answer to a direct get of a missing / an existing key, not decoded. */
  serverAnswer: PairedTiming;
  /** verify's difference less the server's: what the edge's own work leaks. Near 0 is the aim. */
  residualUs: number;
  /** The secret's check alone (SHA-256 and constant-time comparison), which the decoy adds to an unknown id. */
  secretCheckUs: Summary;
  /** The 401 through the edge: unknown id / wrong secret. */
  http: PairedTiming;
  /** Answers that were not the expected refusal (must be 0). */
  wrongAnswers: number;
}

export async function runKeyTimingBench(server: NatsServerHandle, sizes: KeyTimingSizes): Promise<KeyTimingResult> {
  // Every refusal audited, as the first of a minute from an address are: the rest are only counted (docs/api.md).
  const platform = await openPlatform(
    testConfig(server, { WF_AUDIT_PER_IP_PER_MINUTE: "1000000", WF_AUDIT_PER_MINUTE: "10000000" }),
    "bench-key-timing",
  );
  try {
    const keyId = await seedKey(platform);
    const fresh = () => `wfk_${newId()}_${randomBytes(32).toString("hex")}`;
    const wrong = () => `wfk_${keyId}_${randomBytes(32).toString("hex")}`;
    let wrongAnswers = 0;
    const check = async (key: string, expected: string) => {
      const r = await verifyKey(platform.store, key, Date.now());
      if (r.ok || r.reason !== expected) wrongAnswers++;
    };
    const verify = await paired(
      sizes.warmup,
      sizes.rounds,
      () => check(fresh(), "unknown_key"),
      () => check(wrong(), "bad_secret"),
    );
    const storeRead = await paired(
      sizes.warmup,
      sizes.rounds,
      () => platform.store.apiKeys.get(newId()),
      () => platform.store.apiKeys.get(keyId),
    );
    const bucket = `${platform.config.WF_NAMESPACE}_api_keys`;
    const directGet = (id: string) =>
      platform.nc.request(`$JS.API.DIRECT.GET.KV_${bucket}.$KV.${bucket}.${id}`, new Uint8Array(0));
    const serverAnswer = await paired(
      sizes.warmup,
      sizes.rounds,
      () => directGet(newId()),
      () => directGet(keyId),
    );
    const secretCheckUs = secretCheck(sizes.rounds);

    const app = await buildEdge(platform);
    try {
      const refused = async (key: string) => {
        const r = await app.inject({
          method: "GET",
          url: "/api/v1/workflows",
          headers: { authorization: `Bearer ${key}` },
        });
        if (r.statusCode !== 401) wrongAnswers++;
      };
      const httpWarmup = Math.min(sizes.warmup, sizes.httpRounds);
      const http = await paired(
        httpWarmup,
        sizes.httpRounds,
        () => refused(fresh()),
        () => refused(wrong()),
      );
      return {
        sizes,
        verify,
        storeRead,
        serverAnswer,
        residualUs: round(verify.differenceUs - serverAnswer.differenceUs),
        secretCheckUs,
        http,
        wrongAnswers,
      };
    } finally {
      await app.close();
    }
  } finally {
    await platform.close();
  }
}

async function seedKey(platform: Platform): Promise<string> {
  const now = Date.now();
  const userId = newId();
  await platform.store.users.create({
    id: userId,
    email: `${userId}@bench.example`,
    passwordHash: "scrypt$unused",
    plan: "enterprise",
    status: "active",
    createdAt: now,
    updatedAt: now,
  });
  return (await createApiKey(platform.store, { ownerId: userId, scopes: ["WORKFLOW_READ"] })).record.id;
}

/** Times `unknown` and `known` once per round, in ABBA order; the first `warmup` rounds are not kept. */
async function paired(
  warmup: number,
  rounds: number,
  unknown: () => Promise<unknown>,
  known: () => Promise<unknown>,
): Promise<PairedTiming> {
  const samples = { unknown: [] as number[], known: [] as number[] };
  const timed = async (side: "unknown" | "known") => {
    const t0 = performance.now();
    await (side === "unknown" ? unknown() : known());
    return (performance.now() - t0) * 1000;
  };
  for (let i = 0; i < warmup + rounds; i++) {
    const order: ("unknown" | "known")[] = i % 2 === 0 ? ["unknown", "known"] : ["known", "unknown"];
    const times = { unknown: 0, known: 0 };
    for (const side of order) times[side] = await timed(side);
    if (i < warmup) continue;
    samples.unknown.push(times.unknown);
    samples.known.push(times.known);
  }
  const unknownUs = summarize(samples.unknown);
  const knownUs = summarize(samples.known);
  const differences = samples.unknown.map((u, i) => u - samples.known[i]!).sort((a, b) => a - b);
  return {
    unknownUs,
    knownUs,
    differenceUs: round(median(differences)),
    ratio: round(unknownUs.median / knownUs.median, 3),
  };
}

/** The decoy comparison alone, per call: what it adds to an unknown id's check. */
function secretCheck(n: number): Summary {
  const secrets = Array.from({ length: n }, () => randomBytes(32).toString("hex"));
  const samples: number[] = [];
  for (const secret of secrets) {
    const t0 = performance.now();
    secretMatches(secret, DECOY_SECRET_HASH);
    samples.push((performance.now() - t0) * 1000);
  }
  return summarize(samples);
}

export function renderKeyTimingBench(r: KeyTimingResult): string {
  const us = (x: number) => `${x.toFixed(1).padStart(7)} µs`;
  const row = (name: string, p: PairedTiming) =>
    `  ${name.padEnd(46)} unknown p50 ${us(p.unknownUs.median)}  known p50 ${us(p.knownUs.median)}  difference ${us(p.differenceUs)}  ratio ${p.ratio.toFixed(3)}`;
  return [
    `API key timing: unknown key id against a known id with a wrong secret (${r.sizes.rounds} interleaved rounds, ${r.sizes.httpRounds} through the edge)`,
    row("verifyKey (store read, secret hashed, compared)", r.verify),
    row("store read, missing / existing record", r.storeRead),
    row("baseline: server's answer, missing / existing key", r.serverAnswer),
    `  verifyKey beyond the server's answer (difference of differences): ${us(r.residualUs)}; the decoy's hash and comparison cost ${us(r.secretCheckUs.median)}`,
    row("the 401 through the edge (inject, audited)", r.http),
    r.wrongAnswers === 0 ? "  every answer was the expected refusal" : `  WRONG ANSWERS: ${r.wrongAnswers}`,
  ].join("\n");
}
