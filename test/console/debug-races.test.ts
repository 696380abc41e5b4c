import { debugRaceSuite } from "./debug-races-suite";

debugRaceSuite();
