import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { api, ApiError } from "../../api/client";
import type { PasswordBody, PasswordChanged } from "../../api/types";
import { FieldError, FormActions, fieldProblem } from "../../ui/fields";
import { FormError } from "../../ui/states";

function ended(n: number): string {
  if (n === 0) return "You had no other session.";
  return `${n} other session${n === 1 ? " was" : "s were"} ended: log in again there with the new password.`;
}

/** Changing the password: the new one typed twice (checked here), the current one checked by the service. */
export function PasswordForm() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [repeat, setRepeat] = useState("");
  const [mismatch, setMismatch] = useState(false);
  const change = useMutation({
    mutationFn: (body: PasswordBody) => api<PasswordChanged>("POST", "/api/console/password", body),
    onSuccess: () => {
      setCurrent("");
      setNext("");
      setRepeat("");
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (next !== repeat) {
      setMismatch(true);
      return;
    }
    change.mutate({ current, next });
  };
  const wrongCurrent = change.error instanceof ApiError && change.error.code === "PASSWORD_INCORRECT";
  const currentProblem = wrongCurrent
    ? "This is not your current password; nothing was changed."
    : fieldProblem(change.error, "current");
  const nextProblem = fieldProblem(change.error, "next");
  const repeatProblem = mismatch ? "The two new passwords differ: type the same one twice." : null;

  return (
    <form className="form" onSubmit={submit} aria-labelledby="password-title">
      <h2 id="password-title">Change your password</h2>
      <label>
        Current password
        <input
          type="password"
          required
          autoComplete="current-password"
          value={current}
          onChange={(e) => {
            change.reset();
            setCurrent(e.target.value);
          }}
          aria-invalid={currentProblem ? true : undefined}
          aria-describedby={currentProblem ? "current-problem" : undefined}
        />
        <FieldError id="current-problem" message={currentProblem} />
      </label>
      <label>
        New password
        <span className="field-hint">At least 8 characters.</span>
        <input
          type="password"
          required
          autoComplete="new-password"
          value={next}
          onChange={(e) => {
            setMismatch(false);
            setNext(e.target.value);
          }}
          aria-invalid={nextProblem ? true : undefined}
          aria-describedby={nextProblem ? "next-problem" : undefined}
        />
        <FieldError id="next-problem" message={nextProblem} />
      </label>
      <label>
        Repeat the new password
        <input
          type="password"
          required
          autoComplete="new-password"
          value={repeat}
          onChange={(e) => {
            setMismatch(false);
            setRepeat(e.target.value);
          }}
          aria-invalid={repeatProblem ? true : undefined}
          aria-describedby={repeatProblem ? "repeat-problem" : undefined}
        />
        <FieldError id="repeat-problem" message={repeatProblem} />
      </label>
      {wrongCurrent ? null : <FormError error={change.error} placed={["current", "next"]} />}
      {change.data ? (
        <div className="notice-ok" role="status">
          Password changed. {ended(change.data.otherSessionsEnded)} Your API keys keep working.
        </div>
      ) : null}
      <FormActions submit="Change password" busyLabel="Changing…" pending={change.isPending} />
    </form>
  );
}
