/** The mark of a step whose output is pinned: step tests of the steps after it take the pin instead of running it. */
export function PinMark() {
  return (
    <span className="wf-node-pin" role="img" aria-label="pinned" title="pinned: step tests take its pinned output">
      <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true" focusable="false">
        <path d="M5 1h6v1.5l-1 .8V7l2.5 2.5V11H8.75v4L8 16l-.75-1v-4H3.5V9.5L6 7V3.3l-1-.8z" fill="currentColor" />
      </svg>
    </span>
  );
}
