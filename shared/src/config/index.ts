export { loadConfig, ENV_SCHEMA, type Config } from "./env";
export { LlmProviderConfig, ModelPrice, PriceTable, modelMatches } from "./llm";
export { EgressAllowEntrySchema, EgressAllowList, parseEgressAllowEntry, type EgressAllowEntry } from "./egress-allow";
