import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { CreatedApiKey, CreateKeyBody, Scope } from "../../api/types";
import { FieldError, FormActions, fieldProblem } from "../../ui/fields";
import { FormError } from "../../ui/states";
import { SCOPE_HELP, SCOPES } from "./scopes";

/** The form of the create-key modal: a name, the scopes it grants, and an optional lifetime. */
export function CreateKeyForm({ onCreated, onCancel }: { onCreated(key: CreatedApiKey): void; onCancel(): void }) {
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Scope[]>([]);
  const [days, setDays] = useState("");
  const create = useMutation({
    mutationFn: (body: CreateKeyBody) => api<CreatedApiKey>("POST", "/api/console/keys", body),
    onSuccess: onCreated,
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate({ name, scopes, expiresInDays: days.trim() === "" ? undefined : Number(days) });
  };
  const toggle = (scope: Scope, on: boolean) =>
    setScopes((all) => (on ? SCOPES.filter((s) => s === scope || all.includes(s)) : all.filter((s) => s !== scope)));
  const nameProblem = fieldProblem(create.error, "name");
  const scopesProblem = fieldProblem(create.error, "scopes");
  const daysProblem = fieldProblem(create.error, "expiresInDays");

  return (
    <form className="form" onSubmit={submit}>
      <label>
        Name
        <span className="field-hint">What uses it, so that you know which key to revoke later.</span>
        <input
          required
          maxLength={200}
          value={name}
          onChange={(e) => setName(e.target.value)}
          aria-invalid={nameProblem ? true : undefined}
          aria-describedby={nameProblem ? "key-name-problem" : undefined}
          autoFocus
        />
        <FieldError id="key-name-problem" message={nameProblem} />
      </label>
      <fieldset className="field-group" aria-describedby={scopesProblem ? "key-scopes-problem" : undefined}>
        <legend>Scopes</legend>
        {SCOPES.map((scope) => (
          <label key={scope} className="inline choice scope-choice">
            <input type="checkbox" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
            <span>
              <code>{scope}</code>
              <span className="field-hint">{SCOPE_HELP[scope]}</span>
            </span>
          </label>
        ))}
        <FieldError id="key-scopes-problem" message={scopesProblem} />
      </fieldset>
      <label>
        Expires after (days)
        <span className="field-hint">Leave empty for a key that never expires.</span>
        <input
          type="number"
          min={1}
          step={1}
          inputMode="numeric"
          value={days}
          onChange={(e) => setDays(e.target.value)}
          aria-invalid={daysProblem ? true : undefined}
          aria-describedby={daysProblem ? "key-days-problem" : undefined}
        />
        <FieldError id="key-days-problem" message={daysProblem} />
      </label>
      <FormError error={create.error} placed={["name", "scopes", "expiresInDays"]} />
      <FormActions
        submit="Create key"
        busyLabel="Creating…"
        pending={create.isPending}
        other={{ label: "Cancel", onClick: onCancel }}
      />
    </form>
  );
}
