import { stepSuite } from "./steps-suite";

// Every command is handled twice: results and side effects must be exactly those of a plain run.
stepSuite({ WF_REDELIVER_ONCE: "1" });
