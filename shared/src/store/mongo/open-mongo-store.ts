import type { IndexDescription } from "mongodb";
import { ConfigError } from "../../errors";
import type { Store } from "../port";
import type { CellDoc } from "./mongo-cells";
import type { StoredDoc } from "./mongo-collection";
import {
  MongoApiKeyRepo,
  MongoApprovalRepo,
  MongoArtifactRepo,
  MongoAuditRepo,
  MongoChainRunsRepo,
  MongoExecutionRepo,
  MongoScheduleRepo,
  MongoSecretRepo,
  MongoUserRepo,
  MongoWebhookRepo,
  MongoWorkflowRepo,
} from "./repos";

/**
 * The MongoDB store: collections `<namespace>_<type>` in `database`, with every index the list
 * queries use created at open (a no-op when they exist). The store owns its client.
 */
export async function openMongoStore(uri: string, database: string, namespace: string): Promise<Store> {
  if (!/^[A-Za-z0-9_-]+$/.test(namespace)) {
    throw new ConfigError(`store namespace "${namespace}" must match [A-Za-z0-9_-]+ (it names collections)`);
  }
  // Loaded here, not at start-up: the driver costs ~0.3 s of CPU to load, which every process of the
  // embedded default (each service, each `wf` command) would otherwise pay for a store it never opens.
  const { MongoClient } = await import("mongodb");
  const client = new MongoClient(uri);
  await client.connect();
  try {
    const db = client.db(database);
    const collection = async (type: string, indexes: IndexDescription[]) => {
      const docs = db.collection<StoredDoc>(`${namespace}_${type}`);
      if (indexes.length > 0) await docs.createIndexes(indexes);
      return docs;
    };
    const [
      workflows,
      executions,
      approvals,
      artifacts,
      webhooks,
      users,
      apiKeys,
      audit,
      secrets,
      chainRuns,
      schedules,
    ] = await Promise.all([
      collection("workflows", MongoWorkflowRepo.indexes),
      collection("executions", MongoExecutionRepo.indexes),
      collection("approvals", MongoApprovalRepo.indexes),
      collection("artifacts", MongoArtifactRepo.indexes),
      collection("webhooks", MongoWebhookRepo.indexes),
      collection("users", MongoUserRepo.indexes),
      collection("api_keys", MongoApiKeyRepo.indexes),
      collection("audit", MongoAuditRepo.indexes),
      collection("secrets", MongoSecretRepo.indexes),
      collection("chain_runs", MongoChainRunsRepo.indexes),
      collection("schedules", MongoScheduleRepo.indexes),
    ]);
    return {
      kind: "mongodb",
      workflows: new MongoWorkflowRepo(workflows, db.collection<CellDoc>(`${namespace}_workflow_creates`)),
      executions: new MongoExecutionRepo(executions),
      approvals: new MongoApprovalRepo(approvals),
      artifacts: new MongoArtifactRepo(artifacts),
      webhooks: new MongoWebhookRepo(webhooks),
      users: new MongoUserRepo(users),
      apiKeys: new MongoApiKeyRepo(apiKeys),
      audit: new MongoAuditRepo(audit),
      secrets: new MongoSecretRepo(secrets),
      chainRuns: new MongoChainRunsRepo(chainRuns),
      schedules: new MongoScheduleRepo(schedules),
      close: () => client.close(),
    };
  } catch (err) {
    await client.close();
    throw err;
  }
}
