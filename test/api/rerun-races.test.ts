import { rerunRaceSuite } from "./rerun-races-suite";

rerunRaceSuite();
