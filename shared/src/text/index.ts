export { lineDiff } from "./line-diff";
export { forgetJsonText, jsonTextOf, keepJsonText } from "./json-texts";
