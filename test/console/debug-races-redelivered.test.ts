import { debugRaceSuite } from "./debug-races-suite";

// Every command is handled twice: each race must end exactly as in a plain run.
debugRaceSuite({ WF_REDELIVER_ONCE: "1" });
