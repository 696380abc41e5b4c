import { isIP as nodeIsIP } from "node:net";
import { describe, expect, it } from "vitest";
import { isIP } from "./node-net";

describe("the browser's isIP", () => {
  it("answers as node:net does", () => {
    const inputs = [
      "10.0.0.1",
      "255.255.255.255",
      "256.1.1.1",
      "1.2.3",
      "01.2.3.4",
      "::1",
      "2001:db8::",
      "2001:db8::1::2",
      "fe80::1%eth0",
      "1:2:3:4:5:6:7:8:9",
      "::ffff:10.0.0.1",
      "example.com",
      "",
      "1.2.3.4/8",
      ":::",
    ];
    for (const input of inputs) expect([input, isIP(input)]).toEqual([input, nodeIsIP(input)]);
  });
});
