export { commonLines } from "./common-lines";
export { lineDiff } from "./line-diff";
export { forgetJsonText, jsonKeeping, jsonTextOf, keepJsonText, withJsonField } from "./json-texts";
