/** What generated tests of every workspace share (not for the service's own code). */
export { pick, seeded, type Random } from "./random";
