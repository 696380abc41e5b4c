import { cancelRaceSuite } from "./cancel-races-suite";

// Every wait parks: its timer's resume takes the execution up again and ends it, racing the cancel of a parked one.
cancelRaceSuite("parked", { fromMs: -40, toMs: 20, everyMs: 2 }, { WF_HOLD_WAIT_MS: "0" });
