export { buildEdge, startEdge, BODY_LIMIT_BYTES } from "./server";
