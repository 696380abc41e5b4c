/**
 * What one execution's containers may run at once beyond one run each, shared by all of them, nested or side by side
 * (MAX_EXECUTION_FAN_OUT): without it, a foreach of 100 items at once whose items each run a foreach of 100 would hold
 * 10,000 steps in flight in the executor, all waiting in pools every owner shares.
 */
export class FanOutBudget {
  constructor(private free: number) {}

  take(): boolean {
    if (this.free <= 0) return false;
    this.free -= 1;
    return true;
  }

  give(): void {
    this.free += 1;
  }
}
