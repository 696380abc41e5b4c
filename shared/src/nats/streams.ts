import { RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import { nanos } from "@nats-io/nats-core";
import { placementConfig, placementError, type StreamPlacement } from "./placement";
import { streamNames } from "./subjects";

export interface StreamOptions {
  eventsMaxAgeMs: number;
  placement: StreamPlacement;
  /** The TIMER stream holds message schedules too (timers.ts): for servers that have them. */
  scheduledTimers?: boolean;
}

/**
 * Creates the service's streams, or brings existing ones to the current configuration (limits,
 * replicas, placement); safe to call from every process at start.
 */
export async function ensureStreams(jsm: JetStreamManager, ns: string, opts: StreamOptions): Promise<void> {
  const names = streamNames(ns);
  const configs: (Partial<StreamConfig> & { name: string })[] = [
    {
      name: names.cmd,
      subjects: [`${ns}.cmd.>`],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(120_000),
    },
    {
      name: names.evt,
      subjects: [`${ns}.evt.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(opts.eventsMaxAgeMs),
      duplicate_window: nanos(120_000),
    },
    {
      name: names.timer,
      subjects: opts.scheduledTimers ? [`${ns}.timer.>`, `${ns}.timersched.>`] : [`${ns}.timer.>`],
      ...(opts.scheduledTimers ? { allow_msg_schedules: true } : {}),
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      duplicate_window: nanos(120_000),
    },
    {
      name: names.audit,
      subjects: [`${ns}.audit.>`],
      retention: RetentionPolicy.Limits,
      storage: StorageType.File,
      max_age: nanos(90 * 24 * 3600_000),
    },
  ];
  for (const base of configs) {
    const cfg = { ...base, ...placementConfig(opts.placement) };
    await ensureStream(jsm, cfg).catch((err: unknown) => {
      throw placementError(err, `stream ${cfg.name}`, opts.placement);
    });
  }
}

async function ensureStream(jsm: JetStreamManager, cfg: Partial<StreamConfig> & { name: string }, attempt = 1): Promise<void> {
  try {
    const current = (await jsm.streams.info(cfg.name)).config as unknown as Record<string, unknown>;
    // Every update is a proposal the cluster agrees on: only what changed is sent.
    if (Object.entries(cfg).some(([k, v]) => JSON.stringify(current[k]) !== JSON.stringify(v))) await jsm.streams.update(cfg.name, cfg);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    try {
      await jsm.streams.add(cfg);
    } catch (addErr) {
      // Another process created it between our info and add: it is then reconciled as any existing stream.
      if (!isRacedCreate(addErr) || attempt >= 3) throw addErr;
      await ensureStream(jsm, cfg, attempt + 1);
    }
  }
}

/** A create that lost to another process's create of the same stream (half made, it reads as overlapping subjects). */
export function isRacedCreate(err: unknown): boolean {
  return /already in use|exists|subjects overlap/i.test(String((err as Error)?.message ?? err));
}

export function isNotFound(err: unknown): boolean {
  return /not found/i.test(String((err as Error)?.message ?? err));
}
