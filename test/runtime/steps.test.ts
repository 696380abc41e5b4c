import { stepSuite } from "./steps-suite";

stepSuite();
