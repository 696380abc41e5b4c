import { jsonOf } from "./json-text";
import type { CodeRequest } from "./types";

/** What a code step's process may inherit from the service: nothing but these. */
export interface BaseEnv {
  PATH: string;
  LANG: string;
}

/** Paths of one run's private directory, as the step sees them. */
export interface StepDirs {
  home: string;
  artifacts: string;
}

/** Loopback in the step's own network namespace is the step's own: clients go there directly. */
const NO_PROXY = "localhost,127.0.0.1,::1";

/**
 * The variables naming a step's proxy: both spellings (programs differ in which they read; curl
 * only the lower-case http_proxy), and Node's opt-in to them (its fetch ignores them otherwise).
 */
function proxyEnv(proxy: string | undefined): Record<string, string> {
  if (!proxy) return {};
  return {
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    NO_PROXY,
    no_proxy: NO_PROXY,
    NODE_USE_ENV_PROXY: "1",
  };
}

/**
 * The environment of a process of the sandbox that is no step (an MCP server): where programs are, its home, its proxy.
 */
export function processEnv(base: BaseEnv, home: string, proxy: string | undefined): Record<string, string> {
  return { PATH: base.PATH, LANG: base.LANG, HOME: home, ...proxyEnv(proxy) };
}

/**
 * The complete environment of a code step's process, built from scratch so that nothing of the
 * service's own environment (credentials above all) leaks into user code. With `proxy`, the
 * step's only way out (its egress proxy's URL) is named in the variables HTTP clients read.
 */
export function codeStepEnv(req: CodeRequest, dirs: StepDirs, base: BaseEnv, proxy?: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: base.PATH,
    LANG: base.LANG,
    HOME: dirs.home,
    WF_ARTIFACTS_DIR: dirs.artifacts,
    WF_INPUT: jsonOf(req.input),
  };
  Object.assign(env, proxyEnv(proxy));
  for (const [name, value] of Object.entries(req.vars)) {
    if (value !== undefined) setVar(env, `WF_VAR_${name}`, envText(value));
  }
  if (req.item !== undefined) {
    env.WF_ITEM = JSON.stringify(req.item);
    if (isPlainObject(req.item)) {
      for (const [field, value] of Object.entries(req.item)) {
        if (isScalar(value)) setVar(env, `WF_ITEM_${field}`, envText(value));
      }
    }
  }
  return env;
}

/** Strings as-is, numbers and booleans as text, null as empty, arrays and objects as JSON. */
export function envText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === null) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value) ?? "";
}

/** A name with `=` or NUL cannot be an environment variable at all: such a variable is left out. */
function setVar(env: Record<string, string>, name: string, value: string): void {
  if (/[=\0]/.test(name) || value.includes("\0")) return;
  env[name] = value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): boolean {
  return value === null || ["string", "number", "boolean"].includes(typeof value);
}
