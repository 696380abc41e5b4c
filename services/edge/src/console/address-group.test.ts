import { describe, expect, it } from "vitest";
import { addressGroup } from "./address-group";

describe("addressGroup", () => {
  it("keeps an IPv4 address, also as a dual-stack socket reports it", () => {
    expect(addressGroup("203.0.113.7")).toBe("203.0.113.7");
    expect(addressGroup("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressGroup("::FFFF:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts an IPv6 address by its /64, however it is written", () => {
    const group = "2001:db8:0:1::/64";
    for (const ip of [
      "2001:db8:0:1::1",
      "2001:0db8:0000:0001:ffff:ffff:ffff:ffff",
      "2001:db8::1:0:0:0:2",
      "2001:db8:0:1:a::1.2.3.4",
      "2001:db8:0:1::5%eth0",
    ]) {
      expect(addressGroup(ip), ip).toBe(group);
    }
    expect(addressGroup("2001:db8:0:2::1")).not.toBe(group);
    expect(addressGroup("::1")).toBe("0:0:0:0::/64");
    expect(addressGroup("fe80::")).toBe("fe80:0:0:0::/64");
  });
});
