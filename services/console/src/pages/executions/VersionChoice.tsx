import { useId } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { ApiError } from "../../api/client";
import type { RerunPlan } from "../../api/types";

export type Choice = "latest" | "ran";

/**
 * Why the latest version cannot be rerun from this step whatever the variables: it changes a step
 * the rerun would reuse (409 naming it), or it has no such step (400 on fromStep). Null for
 * anything else, which the plan shows where it shows any refusal.
 */
function latestRefusal(error: unknown): { step: string } | { message: string } | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 409 && typeof error.body.step === "string") return { step: error.body.step };
  if (error.status === 400 && error.details.some((d) => d.field === "fromStep")) return { message: error.message };
  return null;
}

/** The versions a rerun may run: the latest saved (when one was saved since the execution ran), or the one it ran. */
export function VersionChoice(props: {
  latest: number;
  ran: number | null;
  fromStep: string;
  chosen: Choice | null;
  latestPlan: UseQueryResult<RerunPlan>;
  onPick(choice: Choice): void;
}) {
  const { latest, ran, fromStep, latestPlan } = props;
  const group = useId();
  const refusal = latestRefusal(latestPlan.error);
  return (
    <fieldset className="field-group">
      <legend>Version to run</legend>
      <label className="inline choice">
        <input
          type="radio"
          name={group}
          checked={props.chosen === "latest"}
          disabled={refusal !== null}
          onChange={() => props.onPick("latest")}
        />
        <span>
          <strong>v{latest}, the latest saved</strong>{" "}
          <span className="muted small">
            {latestPlan.isPending ? (
              "Checking whether it can reuse what this execution recorded…"
            ) : refusal === null ? (
              <>
                The steps before <code>{fromStep}</code> are unchanged in it: their recorded results are reused.
              </>
            ) : "step" in refusal ? (
              <>
                v{latest} changes step <code>{refusal.step}</code>, which comes before <code>{fromStep}</code>, so its
                recorded result cannot be reused. To run v{latest}, rerun from <code>{refusal.step}</code> or an earlier
                step.
              </>
            ) : (
              refusal.message
            )}
          </span>
        </span>
      </label>
      <label className="inline choice">
        <input type="radio" name={group} checked={props.chosen === "ran"} onChange={() => props.onPick("ran")} />
        <span>
          <strong>
            {ran === null ? "The definition this execution ran" : `v${ran}, the version this execution ran`}
          </strong>{" "}
          <span className="muted small">Runs the steps as they were, with nothing saved since.</span>
        </span>
      </label>
    </fieldset>
  );
}
