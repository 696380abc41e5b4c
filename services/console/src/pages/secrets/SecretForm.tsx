import { useState, type FormEvent } from "react";
import { useMutation } from "@tanstack/react-query";
import { api } from "../../api/client";
import type { PutSecretBody, SecretView } from "../../api/types";
import { FieldError, FormActions, fieldProblem } from "../../ui/fields";
import { FormError } from "../../ui/states";

/**
 * Sets a secret's value, creating it or replacing it. The value goes in a password field and is
 * never shown back; `name` fixed is the replace form of an existing secret.
 */
export function SecretForm(props: {
  name?: string;
  existing: string[];
  onSaved(secret: SecretView): void;
  onCancel?(): void;
}) {
  const [name, setName] = useState(props.name ?? "");
  const [value, setValue] = useState("");
  const save = useMutation({
    mutationFn: (v: { name: string; body: PutSecretBody }) =>
      api<SecretView>("PUT", `/api/console/secrets/${encodeURIComponent(v.name)}`, v.body),
    onSuccess: (secret) => {
      setValue("");
      if (props.name === undefined) setName("");
      props.onSaved(secret);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate({ name: name.trim(), body: { value } });
  };
  const nameProblem = fieldProblem(save.error, "name");
  const valueProblem = fieldProblem(save.error, "value");
  const replaces = props.name === undefined && props.existing.includes(name.trim());
  const prefix = props.name === undefined ? "new-secret" : "replace-secret";

  return (
    <form className="form" onSubmit={submit}>
      {props.name === undefined ? (
        <label>
          Name
          <span className="field-hint">
            Letters, digits and <code>_</code>, not starting with a digit; workflows read it as{" "}
            <code>{`{{ secrets.${name.trim() || "name"} }}`}</code>.
          </span>
          <input
            required
            maxLength={64}
            autoComplete="off"
            spellCheck={false}
            value={name}
            onChange={(e) => setName(e.target.value)}
            aria-invalid={nameProblem ? true : undefined}
            aria-describedby={nameProblem ? `${prefix}-name-problem` : undefined}
          />
          <FieldError id={`${prefix}-name-problem`} message={nameProblem} />
          {replaces ? (
            <span className="field-hint">You have a secret of this name: saving replaces its value.</span>
          ) : null}
        </label>
      ) : null}
      <label>
        {props.name === undefined ? "Value" : "New value"}
        <span className="field-hint">
          Sealed when stored and never shown again; executions mask it as *** in results and logs.
        </span>
        <input
          type="password"
          required
          autoComplete="new-password"
          value={value}
          onChange={(e) => setValue(e.target.value)}
          aria-invalid={valueProblem ? true : undefined}
          aria-describedby={valueProblem ? `${prefix}-value-problem` : undefined}
          autoFocus={props.name !== undefined}
        />
        <FieldError id={`${prefix}-value-problem`} message={valueProblem} />
      </label>
      <FormError error={save.error} placed={["name", "value"]} />
      <FormActions
        submit={props.name !== undefined || replaces ? "Replace value" : "Save secret"}
        busyLabel="Saving…"
        pending={save.isPending}
        other={props.onCancel ? { label: "Cancel", onClick: props.onCancel } : undefined}
      />
    </form>
  );
}
