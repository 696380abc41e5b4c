import { ArtifactList, ArtifactParams, ArtifactView, ErrorBody, IdParams } from "@wf/shared/api";
import { WfError } from "@wf/shared/errors";
import { visibleExecution } from "../access/roles";
import { artifactView } from "../views/artifact";
import { defineRoute, type Route } from "./route";

export const artifactRoutes: Route[] = [
  defineRoute({
    method: "GET",
    path: "/api/v1/executions/{id}/artifacts",
    operationId: "listArtifacts",
    summary: "List an execution's artifacts, oldest first, each with a signed downloadUrl",
    tag: "artifacts",
    auth: "ARTIFACT_READ",
    params: IdParams,
    status: 200,
    responses: {
      200: { description: "The execution's artifacts.", schema: ArtifactList },
      404: { description: "No such execution, or not visible to the key's owner.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, caller }) {
      await visibleExecution(ctx.store, params.id, caller().userId);
      const artifacts = await ctx.store.artifacts.listByExecution(params.id);
      const now = ctx.clock();
      return {
        artifacts: artifacts.map((a) => artifactView(a, ctx.signer.downloadUrl(a.id, now))),
        total: artifacts.length,
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/api/v1/executions/{id}/artifacts/{aid}",
    operationId: "getArtifact",
    summary: "One artifact's metadata, with a signed downloadUrl",
    tag: "artifacts",
    auth: "ARTIFACT_READ",
    params: ArtifactParams,
    status: 200,
    responses: {
      200: { description: "The artifact.", schema: ArtifactView },
      404: { description: "No such execution or artifact (of that execution), or not visible.", schema: ErrorBody },
    },
    async handler({ params }, { ctx, caller }) {
      await visibleExecution(ctx.store, params.id, caller().userId);
      const artifact = await ctx.store.artifacts.get(params.aid);
      if (!artifact || artifact.value.executionId !== params.id) {
        throw new WfError("NOT_FOUND", `artifact ${params.aid} of execution ${params.id} not found`);
      }
      return artifactView(artifact.value, ctx.signer.downloadUrl(artifact.value.id, ctx.clock()));
    },
  }),
];
