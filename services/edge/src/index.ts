export { buildEdge, startEdge, BODY_LIMIT_BYTES } from "./server";
export type { EdgeOptions } from "./context-open";
export { apiRoutes } from "./routes/index";
export { openApiDocument, allResponses } from "./openapi/document";
