import { lifecycleSuite } from "./lifecycle-suite";

// Every command is handled twice: results and side effects must be exactly those of a plain run.
lifecycleSuite({ WF_REDELIVER_ONCE: "1" });
