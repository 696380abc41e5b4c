import { RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import { nanos } from "@nats-io/nats-core";
import { streamNames } from "./subjects";

export interface StreamOptions {
  eventsMaxAgeMs: number;
}

/** Creates or updates the service's streams; safe to call from every process at start. */
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
      subjects: [`${ns}.timer.>`],
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
  for (const cfg of configs) {
    try {
      await jsm.streams.info(cfg.name);
      await jsm.streams.update(cfg.name, cfg);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await jsm.streams.add(cfg);
      } catch (addErr) {
        // Another process created it between our info and add.
        if (!/already in use|exists/i.test(String(addErr))) throw addErr;
      }
    }
  }
}

export function isNotFound(err: unknown): boolean {
  return /not found/i.test(String((err as Error)?.message ?? err));
}
