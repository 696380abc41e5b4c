import type { Config } from "@wf/shared/config";
import { hostAddresses } from "./host-addresses";
import { EgressPolicy } from "./policy";

/** The operator's policy: WF_EGRESS_ALLOW over the default refusals, this host's addresses read live. */
export function operatorPolicy(config: Pick<Config, "WF_EGRESS_ALLOW">): EgressPolicy {
  return new EgressPolicy({ allow: config.WF_EGRESS_ALLOW ?? [], hostAddresses: hostAddresses() });
}
