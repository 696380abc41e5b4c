export { ArtifactFiles, type ArtifactFile, type ArtifactOwner } from "./artifact-files";
export { contentTypeOf, isPreviewable } from "./content-type";
