export { loadConfig, ENV_SCHEMA, type Config } from "./env";
export { LlmProviderConfig, ModelPrice, PriceTable, modelMatches } from "./llm";
