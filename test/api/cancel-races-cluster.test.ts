import { cancelRaceSuite } from "./cancel-races-suite";

// On three clustered nats-servers: reads may come from a replica, every write is decided at the leader.
cancelRaceSuite("parked, on a cluster", { fromMs: -40, toMs: 20, everyMs: 2 }, { WF_HOLD_WAIT_MS: "0" }, 3);
