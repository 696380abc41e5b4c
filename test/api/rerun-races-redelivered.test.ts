import { rerunRaceSuite } from "./rerun-races-suite";

// Every command is handled twice, a rerun's start among them: each rerun must be exactly that of a plain run.
rerunRaceSuite({ WF_REDELIVER_ONCE: "1" });
