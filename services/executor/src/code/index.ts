export type { CodeLanguage, CodeRequest, CodeResult, CodeRunner } from "./types";
export { UnsupportedLanguageError } from "./types";
export { createCodeRunner } from "./runner";
