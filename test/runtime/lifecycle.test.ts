import { lifecycleSuite } from "./lifecycle-suite";

lifecycleSuite();
