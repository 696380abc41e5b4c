export { startApprovals } from "./service";
