export { buildEdge, startEdge, BODY_LIMIT_BYTES } from "./server";
export type { EdgeOptions } from "./context-open";
export { apiRoutes, consoleApi, sessionRoutes } from "./routes/index";
export { triggerRouteDocs } from "./webhooks/trigger-doc";
export { approvalLinkDocs } from "./approval-link/link-doc";
export { openApiDocument, allResponses } from "./openapi/document";
export { edgeMetrics } from "./ops/edge-metrics";
export { CLOCK_SKEW_S } from "./downloads/url-signer";
export { verifyKey } from "./auth/verify-key";
