export { loadConfig, ENV_SCHEMA, type Config } from "./env";
