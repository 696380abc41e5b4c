export { lineDiff } from "./line-diff";
