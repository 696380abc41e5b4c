export { lineDiff } from "./line-diff";
export { forgetJsonText, jsonKeeping, jsonTextOf, keepJsonText, withJsonField } from "./json-texts";
