import { networkInterfaces } from "node:os";
import { parseIp, type Ip } from "./ip";

/** Interfaces change rarely (a DHCP lease, a container's network); reading them costs about 60 µs. */
const REFRESH_MS = 5_000;

/**
 * Every address of this host's interfaces, read again at most every few seconds: the service's
 * own ports (the edge, NATS, a debugger) listen there, whatever range the address is in.
 */
export function hostAddresses(): () => readonly Ip[] {
  let read = -Infinity;
  let addresses: readonly Ip[] = [];
  return () => {
    if (performance.now() - read >= REFRESH_MS) {
      addresses = Object.values(networkInterfaces()).flatMap((list) =>
        (list ?? []).map((i) => parseIp(i.address)).filter((ip): ip is Ip => ip !== null),
      );
      read = performance.now();
    }
    return addresses;
  };
}
