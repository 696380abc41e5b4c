export {
  EgressProxy,
  type EgressProxyOptions,
  type EgressSession,
  type EgressSessionOptions,
  type SessionRefusal,
} from "./proxy";
export { DEFAULT_LIMITS, type EgressLimits } from "./context";
export { EgressPolicy, narrowing, type EgressRefusal, type Narrowing } from "./policy";
export { operatorPolicy } from "./operator-policy";
export { checkDestination, systemLookup, type DnsLookup, type EgressVerdict } from "./check";
export { parseDestination, type Destination } from "./destination";
export {
  egressFetch,
  EgressRefusedError,
  ResponseTooLargeError,
  tooLargeAnswer,
  type EgressFetchFn,
} from "./egress-fetch";
