import { describe, expect, it } from "vitest";
import { loadConfig, parseEgressAllowEntry } from "@wf/shared/config";
import { checkDestination, type DnsLookup } from "./check";
import { parseAuthority, parseDestination, type Destination } from "./destination";
import { parseIp, type Ip } from "./ip";
import { EgressPolicy, judge, narrowing, refuseByName } from "./policy";

/** The operator's policy with WF_EGRESS_ALLOW = `allow`, on a host whose interfaces hold `own`. */
function policy(allow = "", own: string[] = []): EgressPolicy {
  const entries = loadConfig({ WF_EGRESS_ALLOW: allow }).WF_EGRESS_ALLOW ?? [];
  const addresses = own.map((a) => parseIp(a)!);
  return new EgressPolicy({ allow: entries, hostAddresses: () => addresses });
}

function dest(host: string, port = 443): Destination {
  const d = parseDestination(host, port);
  if (typeof d === "string") throw new Error(d);
  return d;
}

function ip(text: string): Ip {
  return parseIp(text)!;
}

/** Why `address` (the literal destination itself) is refused, or null. */
function refusalOf(p: EgressPolicy, address: string, port = 443): string | null {
  const d = dest(address.includes(":") ? `[${address}]` : address, port);
  return judge(p, [], d, [(d as Extract<Destination, { kind: "ip" }>).ip])?.reason ?? null;
}

describe("destination hosts", () => {
  it.each([
    "2130706433",
    "0177.0.0.1",
    "0x7f.1",
    "0x7f000001",
    "127.1",
    "127.0.0.1.",
    "%31%32%37.0.0.1",
    "１２７.０.０.１",
    "017700000001",
  ])("reads the IPv4 notation %s as 127.0.0.1", (host) => {
    expect(dest(host)).toMatchObject({ kind: "ip", host: "127.0.0.1" });
  });

  it("reads bracketed IPv6 in its canonical form, and IPv4 in IPv6 as IPv6 (judged by the IPv4 it stands for)", () => {
    expect(dest("[0:0:0:0:0:0:0:1]")).toMatchObject({ kind: "ip", host: "::1" });
    expect(dest("[::FFFF:127.0.0.1]")).toMatchObject({ kind: "ip", host: "::ffff:7f00:1" });
    expect(parseAuthority("[::1]:8443")).toMatchObject({ kind: "ip", host: "::1", port: 8443 });
  });

  it("reads names in lower-case ASCII without a trailing dot", () => {
    expect(dest("API.Example.COM.")).toMatchObject({ kind: "name", name: "api.example.com" });
    expect(dest("bücher.de")).toMatchObject({ kind: "name", name: "xn--bcher-kva.de" });
  });

  it.each([
    ["[fe80::1%eth0]", /zone ids are refused/],
    ["[fe80::1%25eth0]", /zone ids are refused/],
    ["1.2.3.4.5", /not a host name or an address/],
    ["08.0.0.1", /not a host name or an address/],
    ["4294967296", /not a host name or an address/],
    ["user@127.0.0.1", /not a host name or an address/],
    ["::1", /not a host name or an address/],
    ["a b.com", /not a host name or an address/],
    ["a*b.com", /not a host name or an address/],
    ["", /not a host name or an address/],
  ])("refuses %s", (host, reason) => {
    expect(parseDestination(host, 443)).toMatch(reason);
  });

  it("refuses ports outside 1-65535 and authorities that are not host:port", () => {
    expect(parseDestination("example.com", 0)).toBe("port 0 is not a port number");
    expect(parseAuthority("example.com:70000")).toBe("port 70000 is not a port number");
    expect(parseAuthority("example.com")).toMatch(/is not host:port/);
    expect(parseAuthority("::1:443")).toMatch(/is not host:port/);
  });
});

describe("the operator's default refusals", () => {
  const p = policy();
  it.each([
    ["127.0.0.1", "127.0.0.1 is a loopback address (allow it with WF_EGRESS_ALLOW)"],
    ["127.255.0.9", "127.255.0.9 is a loopback address (allow it with WF_EGRESS_ALLOW)"],
    ["::1", "::1 is a loopback address (allow it with WF_EGRESS_ALLOW)"],
    ["0.0.0.0", "0.0.0.0 is an unspecified address (allow it with WF_EGRESS_ALLOW)"],
    ["::", ":: is an unspecified address (allow it with WF_EGRESS_ALLOW)"],
    ["10.0.0.5", "10.0.0.5 is a private address (allow it with WF_EGRESS_ALLOW)"],
    ["172.31.255.1", "172.31.255.1 is a private address (allow it with WF_EGRESS_ALLOW)"],
    ["192.168.1.1", "192.168.1.1 is a private address (allow it with WF_EGRESS_ALLOW)"],
    ["fd12:3456::1", "fd12:3456::1 is a private address (allow it with WF_EGRESS_ALLOW)"],
    ["100.100.1.1", "100.100.1.1 is a shared (CGNAT) address (allow it with WF_EGRESS_ALLOW)"],
    ["169.254.169.254", "169.254.169.254 is the cloud metadata address (allow it with WF_EGRESS_ALLOW)"],
    ["169.254.3.4", "169.254.3.4 is a link-local address (allow it with WF_EGRESS_ALLOW)"],
    ["fe80::1", "fe80::1 is a link-local address (allow it with WF_EGRESS_ALLOW)"],
    ["224.0.0.251", "224.0.0.251 is a multicast address (allow it with WF_EGRESS_ALLOW)"],
    ["ff02::1", "ff02::1 is a multicast address (allow it with WF_EGRESS_ALLOW)"],
    ["255.255.255.255", "255.255.255.255 is the broadcast address (allow it with WF_EGRESS_ALLOW)"],
    ["240.0.0.1", "240.0.0.1 is a reserved address (allow it with WF_EGRESS_ALLOW)"],
    ["192.0.2.10", "192.0.2.10 is a reserved address (allow it with WF_EGRESS_ALLOW)"],
    ["2001:db8::1", "2001:db8::1 is a reserved address (allow it with WF_EGRESS_ALLOW)"],
    ["4000::1", "4000::1 is a reserved address (allow it with WF_EGRESS_ALLOW)"],
    ["::0.0.0.5", "::5 is a reserved address (allow it with WF_EGRESS_ALLOW)"],
    ["::ffff:127.0.0.1", "::ffff:7f00:1 (127.0.0.1) is a loopback address (allow it with WF_EGRESS_ALLOW)"],
    [
      "::ffff:a9fe:a9fe",
      "::ffff:a9fe:a9fe (169.254.169.254) is the cloud metadata address (allow it with WF_EGRESS_ALLOW)",
    ],
    ["::127.0.0.1", "::7f00:1 (127.0.0.1) is a loopback address (allow it with WF_EGRESS_ALLOW)"],
    ["64:ff9b::10.0.0.1", "64:ff9b::a00:1 (10.0.0.1) is a private address (allow it with WF_EGRESS_ALLOW)"],
    ["2002:c0a8:101::1", "2002:c0a8:101::1 (192.168.1.1) is a private address (allow it with WF_EGRESS_ALLOW)"],
  ])("refuses %s", (address, reason) => {
    expect(refusalOf(p, address)).toBe(reason);
  });

  it.each([
    "93.184.215.14",
    "8.8.8.8",
    "2606:4700:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "100.63.255.255",
    "172.32.0.1",
  ])("lets the public address %s through", (address) => {
    expect(refusalOf(p, address)).toBeNull();
  });

  it("refuses this host's own addresses, whatever their range, in IPv6 forms too; ports are not restricted", () => {
    const onHost = policy("", ["52.1.2.3", "2600:1f18::5"]);
    expect(refusalOf(onHost, "52.1.2.3")).toBe("52.1.2.3 is an address of this host (allow it with WF_EGRESS_ALLOW)");
    expect(refusalOf(onHost, "::ffff:52.1.2.3")).toBe(
      "::ffff:3401:203 (52.1.2.3) is an address of this host (allow it with WF_EGRESS_ALLOW)",
    );
    expect(refusalOf(onHost, "2600:1f18::5")).toBe(
      "2600:1f18::5 is an address of this host (allow it with WF_EGRESS_ALLOW)",
    );
    expect(refusalOf(onHost, "52.1.2.4", 25)).toBeNull();
  });
});

describe("WF_EGRESS_ALLOW", () => {
  it("allows addresses in its ranges, on its port when it names one, in IPv6 forms too", () => {
    const p = policy("10.1.0.0/16,127.0.0.1:8080,[fd00::/8]:443,192.168.5.5");
    expect(refusalOf(p, "10.1.200.3")).toBeNull();
    expect(refusalOf(p, "::ffff:10.1.200.3")).toBeNull();
    expect(refusalOf(p, "10.2.0.1")).toMatch(/is a private address/);
    expect(refusalOf(p, "127.0.0.1", 8080)).toBeNull();
    expect(refusalOf(p, "127.0.0.1", 8081)).toMatch(/is a loopback address/);
    expect(refusalOf(p, "fd00::9", 443)).toBeNull();
    expect(refusalOf(p, "fd00::9", 80)).toMatch(/is a private address/);
    expect(refusalOf(p, "192.168.5.5", 1)).toBeNull();
  });

  it("allows what a listed name, or a subdomain of a `*.` pattern, resolves to; a pattern does not hold its own name", () => {
    const p = policy("db.local:5432,*.internal.example.com");
    const internal = [ip("10.9.8.7")];
    expect(judge(p, [], dest("db.local", 5432), internal)).toBeNull();
    expect(judge(p, [], dest("db.local", 5433), internal)?.reason).toBe(
      "db.local resolves to a private address (allow it with WF_EGRESS_ALLOW)",
    );
    expect(judge(p, [], dest("git.internal.example.com"), internal)).toBeNull();
    expect(judge(p, [], dest("a.b.internal.example.com"), internal)).toBeNull();
    expect(judge(p, [], dest("internal.example.com"), internal)?.rule).toBe("operator");
    expect(judge(p, [], dest("evilinternal.example.com"), internal)?.rule).toBe("operator");
  });

  it("`0.0.0.0/0,::/0` lifts every refusal, this host's addresses included", () => {
    const open = policy("0.0.0.0/0,::/0", ["10.0.0.2"]);
    for (const a of ["127.0.0.1", "::1", "10.0.0.2", "169.254.169.254", "::ffff:127.0.0.1"])
      expect(refusalOf(open, a), a).toBeNull();
  });

  it.each([
    ["db.local:5432", { kind: "host", name: "db.local", subdomains: false, port: 5432 }],
    ["*.Internal.Example.com.", { kind: "host", name: "internal.example.com", subdomains: true }],
    ["10.1.0.0/16:8443", { kind: "range", address: "10.1.0.0", prefix: 16, family: 4, port: 8443 }],
    ["fd00::/8", { kind: "range", address: "fd00::", prefix: 8, family: 6 }],
    ["[::1]:80", { kind: "range", address: "::1", prefix: 128, family: 6, port: 80 }],
  ])("reads the entry %s", (text, entry) => {
    expect(parseEgressAllowEntry(text)).toEqual(entry);
  });

  it.each([
    ["*", /write 0\.0\.0\.0\/0,::\/0/],
    ["127.1", /four decimal numbers/],
    ["db.local:0", /the port must be a number from 1 to 65535/],
    ["db.local:99999", /the port must be a number from 1 to 65535/],
    ["[10.0.0.1]:80", /is not an address, a CIDR range or a host name/],
    ["10.0.0.0/33", /is not an address, a CIDR range or a host name/],
    ["a..b", /is not an address, a CIDR range or a host name/],
    ["x.*.com", /is not an address, a CIDR range or a host name/],
  ])("refuses the entry %s", (text, why) => {
    expect(parseEgressAllowEntry(text)).toMatch(why);
  });

  it("a bad entry stops start-up naming the variable and the entry", () => {
    expect(() => loadConfig({ WF_EGRESS_ALLOW: "10.0.0.0/8, nope..x ,db:5432" })).toThrow(
      /WF_EGRESS_ALLOW="10\.0\.0\.0\/8, nope\.\.x ,db:5432": "nope\.\.x" is not/,
    );
  });
});

describe("a step's narrowing lists", () => {
  const workflow = narrowing("the workflow's network.allow list", [
    "api.github.com",
    "*.example.com:443",
    "93.184.215.0/24",
  ]);

  it("let through the names they hold (subdomains for `*.`), on their ports", () => {
    const p = policy();
    const pub = [ip("140.82.112.5")];
    expect(judge(p, [workflow], dest("api.github.com", 8443), pub)).toBeNull();
    expect(judge(p, [workflow], dest("www.example.com", 443), pub)).toBeNull();
    expect(judge(p, [workflow], dest("www.example.com", 80), pub)?.reason).toBe(
      "www.example.com:80 is not in the workflow's network.allow list",
    );
    expect(judge(p, [workflow], dest("example.com", 443), pub)?.reason).toBe(
      "example.com:443 is not in the workflow's network.allow list",
    );
  });

  it("hold an address by range, for literals and for every address a name resolves to", () => {
    const p = policy();
    expect(judge(p, [workflow], dest("93.184.215.14"), [ip("93.184.215.14")])).toBeNull();
    expect(judge(p, [workflow], dest("cdn.other.net"), [ip("93.184.215.14")])).toBeNull();
    expect(judge(p, [workflow], dest("cdn.other.net"), [ip("93.184.215.14"), ip("1.1.1.1")])?.rule).toBe("narrowing");
  });

  it("never widen the operator's policy", () => {
    const loopback = narrowing("the workflow's network.allow list", ["127.0.0.1", "localhost"]);
    expect(judge(policy(), [loopback], dest("127.0.0.1"), [ip("127.0.0.1")])?.reason).toBe(
      "127.0.0.1 is a loopback address (allow it with WF_EGRESS_ALLOW)",
    );
    expect(judge(policy(), [loopback], dest("localhost"), [ip("::1")])?.reason).toBe(
      "localhost resolves to a loopback address (allow it with WF_EGRESS_ALLOW)",
    );
    expect(judge(policy("127.0.0.0/8"), [loopback], dest("127.0.0.1"), [ip("127.0.0.1")])).toBeNull();
  });

  it("must each hold the destination (an owner's list and the workflow's narrow together)", () => {
    const owner = narrowing("the owner's egress setting", ["*.example.com"]);
    const p = policy();
    expect(judge(p, [owner, workflow], dest("www.example.com", 443), [ip("1.1.1.1")])).toBeNull();
    expect(judge(p, [owner, workflow], dest("api.github.com", 443), [ip("1.1.1.1")])?.reason).toBe(
      "api.github.com:443 is not in the owner's egress setting",
    );
  });

  it("refuse a name before any DNS when no range entry could hold its addresses", () => {
    const names = narrowing("the workflow's network.allow list", ["api.github.com"]);
    expect(refuseByName(dest("evil.example"), [names])?.reason).toBe(
      "evil.example:443 is not in the workflow's network.allow list",
    );
    expect(refuseByName(dest("api.github.com"), [names])).toBeNull();
    expect(refuseByName(dest("evil.example"), [workflow])).toBeNull();
  });

  it("throw on a bad entry, naming the list", () => {
    expect(() => narrowing("the workflow's network.allow list", ["ok.com", "bad..com"])).toThrow(
      /^the workflow's network.allow list: "bad..com" is not/,
    );
  });
});

describe("checking a destination", () => {
  function countingLookup(answers: Record<string, string[]>): { lookup: DnsLookup; asked: string[] } {
    const asked: string[] = [];
    const lookup: DnsLookup = async (name) => {
      asked.push(name);
      const found = answers[name];
      if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: "ENOTFOUND" });
      return found.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    };
    return { lookup, asked };
  }

  it("allows a name whose every address passes, carrying exactly the checked addresses", async () => {
    const { lookup, asked } = countingLookup({
      "api.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    });
    const verdict = await checkDestination(dest("api.example.com"), { policy: policy(), lookup });
    expect(verdict).toEqual({
      kind: "allowed",
      dest: dest("api.example.com"),
      addresses: [
        { address: "93.184.215.14", family: 4 },
        { address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 },
      ],
    });
    expect(asked).toEqual(["api.example.com"]);
  });

  it("refuses a name when any of its addresses is refused, naming the kind of address and not the address (the operator's DNS stays its own)", async () => {
    const { lookup } = countingLookup({ "split.example.com": ["93.184.215.14", "10.0.0.7"] });
    expect(await checkDestination(dest("split.example.com"), { policy: policy(), lookup })).toEqual({
      kind: "refused",
      refusal: {
        host: "split.example.com",
        port: 443,
        reason: "split.example.com resolves to a private address (allow it with WF_EGRESS_ALLOW)",
        rule: "operator",
      },
    });
  });

  it("does not look up a name its narrowing lists refuse, nor an IP literal", async () => {
    const { lookup, asked } = countingLookup({});
    const names = narrowing("the workflow's network.allow list", ["api.github.com"]);
    expect(
      (await checkDestination(dest("exfiltrate.attacker.example"), { policy: policy(), narrowing: [names], lookup }))
        .kind,
    ).toBe("refused");
    expect((await checkDestination(dest("0x7f.1"), { policy: policy(), lookup })).kind).toBe("refused");
    expect(asked).toEqual([]);
  });

  it("reports a name that does not resolve, or not in time", async () => {
    const { lookup } = countingLookup({});
    expect(await checkDestination(dest("nowhere.example"), { policy: policy(), lookup })).toEqual({
      kind: "unresolved",
      dest: dest("nowhere.example"),
      error: "ENOTFOUND",
    });
    const never: DnsLookup = () => new Promise(() => undefined);
    expect(
      await checkDestination(dest("slow.example"), { policy: policy(), lookup: never, timeoutMs: 20 }),
    ).toMatchObject({
      kind: "unresolved",
      error: "ETIMEOUT",
    });
  });
});
