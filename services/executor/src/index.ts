export { startExecutor, type RunningService } from "./service";
