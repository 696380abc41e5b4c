import { describe, expect, it } from "vitest";
import { varyingCall } from "./varying-calls";

describe("varyingCall, the call that may give another value at each evaluation", () => {
  it("finds a call of $now, $millis, $random or $shuffle, or one passed as a function", () => {
    expect(varyingCall("[$random(), $random()]")).toBe("$random()");
    expect(varyingCall("x ~> $millis()")).toBe("$millis()");
    expect(varyingCall("$shuffle(steps.list.output)")).toBe("$shuffle()");
    expect(varyingCall("$now()[0]")).toBe("$now()");
    expect(varyingCall("$map([1, 2], $random)")).toBe("$random()");
    expect(varyingCall("{'at': $now()}")).toBe("$now()");
    expect(varyingCall("$eval('$now()')")).toBe("$now()");
  });

  it("does not take a string, a key or a field named like one for a call", () => {
    expect(varyingCall("'$now' & x")).toBeNull();
    expect(varyingCall("{'$random': 1}")).toBeNull();
    expect(varyingCall("x.`$now`")).toBeNull();
    expect(varyingCall("steps.now.output.random")).toBeNull();
    expect(varyingCall("'calls $shuffle() later'")).toBeNull();
  });

  it("does not take the expression's own names for the built-ins", () => {
    expect(varyingCall("($now := 5; $now)")).toBeNull();
    expect(varyingCall("function($random) { $random }(3)")).toBeNull();
  });

  it("gives none for an expression that does not parse", () => {
    expect(varyingCall("$now(")).toBeNull();
  });
});
