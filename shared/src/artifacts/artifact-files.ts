import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type { ObjectStore } from "@nats-io/obj";
import { basename } from "node:path";
import { AlreadyExistsError } from "../errors";
import { newId } from "../execution/ids";
import { openObjectBucket } from "../nats/buckets";
import { openStoredObject, type StoredObject } from "../nats/object-reader";
import type { StreamPlacement } from "../nats/placement";
import { retryTransient } from "../nats/transient";
import type { ArtifactRecord } from "../store/records";
import type { Store } from "../store/port";
import { contentTypeOf, isPreviewable } from "./content-type";

export interface ArtifactFile {
  /** Path relative to the step's artifacts directory. */
  path: string;
  content: Uint8Array;
}

export interface ArtifactOwner {
  executionId: string;
  ownerId: string;
  stepName: string;
}

/**
 * Artifact files live in a JetStream Object Store bucket (`<ns>_artifacts`), their metadata in
 * the store's artifact repository: the embedded default needs no other server, and the bucket
 * replicates with the NATS cluster.
 */
export class ArtifactFiles {
  private constructor(
    private readonly jsm: JetStreamManager,
    private readonly bucketName: string,
    private readonly bucket: ObjectStore,
    private readonly store: Store,
  ) {}

  static async open(
    nc: NatsConnection,
    namespace: string,
    placement: StreamPlacement,
    store: Store,
  ): Promise<ArtifactFiles> {
    const name = `${namespace}_artifacts`;
    const bucket = await openObjectBucket(nc, name, placement);
    return new ArtifactFiles(await jetstreamManager(nc), name, bucket, store);
  }

  /** Stores the files, then their records; returns the records in the order given. */
  async save(owner: ArtifactOwner, files: ArtifactFile[]): Promise<ArtifactRecord[]> {
    const records: ArtifactRecord[] = [];
    for (const file of files) {
      const id = newId();
      const storageKey = `${owner.executionId}/${id}`;
      // Through transient failures: the blob's name and the record's id are fixed, so one that
      // landed unseen is written over, or found there.
      await retryTransient(() => this.bucket.putBlob({ name: storageKey }, file.content));
      const contentType = contentTypeOf(file.path);
      const record: ArtifactRecord = {
        id,
        executionId: owner.executionId,
        ownerId: owner.ownerId,
        stepName: owner.stepName,
        name: basename(file.path),
        path: file.path,
        storageKey,
        size: file.content.byteLength,
        contentType,
        previewable: isPreviewable(contentType),
        createdAt: Date.now(),
      };
      await retryTransient(() => this.store.artifacts.create(record)).catch((err: unknown) => {
        if (!(err instanceof AlreadyExistsError)) throw err;
      });
      records.push(record);
    }
    return records;
  }

  /** The file, or null when it is gone: its bytes are read from the store only as its `read` stream is. */
  open(storageKey: string): Promise<StoredObject | null> {
    return openStoredObject(this.jsm, this.bucketName, this.bucket, storageKey);
  }

  /** Removes an execution's files and their records (retention). */
  async removeAll(executionId: string): Promise<number> {
    const records = await this.store.artifacts.listByExecution(executionId);
    for (const record of records) {
      // The file first: a record left by a crash still names it, and the next pass removes both.
      await this.bucket.delete(record.storageKey);
      await this.store.artifacts.delete(record.id);
    }
    return records.length;
  }

  async read(storageKey: string): Promise<Uint8Array | null> {
    return this.bucket.getBlob(storageKey);
  }
}
