/** The host loopback address steps may reach in tests; 127.0.0.1 is the step's own loopback. */
export const SIDE_EFFECTS_HOST = "127.0.0.2";

/** What a test's executor allows its steps to reach: the SideEffects servers. */
export const EGRESS_TEST_ALLOWANCE = { WF_EGRESS_ALLOW: `${SIDE_EFFECTS_HOST}/32` };
