import { describe, expect, it } from "vitest";
import { initialViewport, inView } from "./viewport";

describe("initialViewport", () => {
  it("shows a small drawing whole, centred and not enlarged", () => {
    expect(initialViewport({ width: 200, height: 100 }, { width: 600, height: 400 })).toEqual({
      x: 200,
      y: 150,
      zoom: 1,
    });
  });

  it("zooms out to fit a drawing that fits at a readable size", () => {
    const view = initialViewport({ width: 240, height: 1000 }, { width: 600, height: 648 });
    expect(view.zoom).toBeCloseTo(0.6);
    expect(view.y).toBeCloseTo((648 - 600) / 2);
  });

  it("opens a tall workflow at its top, readable", () => {
    const view = initialViewport({ width: 240, height: 20000 }, { width: 600, height: 600 });
    expect(view).toEqual({ x: (600 - 240 * 0.6) / 2, y: 24, zoom: 0.6 });
  });

  it("centres the drawing in the room the palette leaves", () => {
    expect(initialViewport({ width: 200, height: 100 }, { width: 600, height: 400 }, 150)).toEqual({
      x: 275,
      y: 150,
      zoom: 1,
    });
  });

  it("zooms out further for a drawing too wide to read otherwise", () => {
    expect(initialViewport({ width: 2000, height: 20000 }, { width: 548, height: 600 }).zoom).toBeCloseTo(0.25);
  });
});

describe("inView", () => {
  const view = { x: 10, y: 20, zoom: 0.5 };
  it("tells whether a box is wholly in the pane", () => {
    expect(inView({ absX: 0, absY: 0, width: 100, height: 100 }, view, { width: 200, height: 200 })).toBe(true);
    expect(inView({ absX: 300, absY: 0, width: 100, height: 100 }, view, { width: 200, height: 200 })).toBe(false);
    expect(inView({ absX: 0, absY: -50, width: 100, height: 100 }, view, { width: 200, height: 200 })).toBe(false);
  });
});
