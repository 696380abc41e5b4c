import type { ArtifactView } from "@wf/shared/api";
import type { ArtifactRecord } from "@wf/shared/store";

export function artifactView(a: ArtifactRecord, downloadUrl: string): ArtifactView {
  return {
    id: a.id,
    name: a.name,
    path: a.path,
    storageKey: a.storageKey,
    downloadUrl,
    previewable: a.previewable,
    size: a.size,
    contentType: a.contentType,
    stepName: a.stepName,
    createdAt: a.createdAt,
  };
}
