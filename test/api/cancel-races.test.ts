import { cancelRaceSuite } from "./cancel-races-suite";

// The run holds the execution through its wait (waited out in memory) and ends at its next write.
cancelRaceSuite("held", { fromMs: -20, toMs: 2, everyMs: 1 });
