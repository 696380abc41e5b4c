export { startScheduler } from "./service";
