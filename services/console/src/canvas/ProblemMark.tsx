import { useContext, type ReactNode } from "react";
import { CanvasActionsContext } from "./actions";
import type { IssueMark } from "./elements";

/**
 * A red mark for problems, its name and tooltip saying them after `label`. Where the page can put the editor's cursor
 * on a problem, the mark is a button that does so for the first one; elsewhere it only shows them.
 */
export function ProblemMark({
  issues,
  label,
  className,
  children,
}: {
  issues: readonly IssueMark[];
  label: string;
  className: string;
  children: ReactNode;
}) {
  const { issueClick } = useContext(CanvasActionsContext);
  const words = issues.map(({ line, message }) => `line ${line}: ${message}`);
  const named = { title: words.join("\n"), "aria-label": `${label}: ${words.join("; ")}` };
  const [first] = issues;
  if (!issueClick || !first)
    return (
      <span className={className} role="img" {...named}>
        {children}
      </span>
    );
  return (
    <button
      type="button"
      className={`${className} nodrag`}
      {...named}
      onClick={(event) => {
        // The node's own click would select the step, and with it the step's lines in place of the problem's.
        event.stopPropagation();
        issueClick(first);
      }}
    >
      {children}
    </button>
  );
}
