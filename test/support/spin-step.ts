/**
 * A top-level JavaScript step, on lines of its own after the one before it, that keeps its isolate (and its run) busy
 * for `ms`, then returns 1. It is pure: nothing outside sees it run.
 */
export const spinStep = (name: string, ms: number): string => `
  - name: ${name}
    type: code
    language: javascript
    code: |
      const end = Date.now() + ${ms};
      while (Date.now() < end) {}
      return 1;`;
