import { useId } from "react";

interface Props {
  foreach: string;
  value: number;
  onChange(index: number): void;
}

/** Which item of a foreach a step test runs its step in: an index from 0, the foreach's items evaluated anew. */
export function ItemChoice({ foreach, value, onChange }: Props) {
  const id = useId();
  return (
    <>
      <label htmlFor={id}>
        Item of <code>{foreach}</code> (from 0)
      </label>
      <input
        id={id}
        type="number"
        min={0}
        step={1}
        inputMode="numeric"
        value={value}
        onChange={(e) => onChange(Math.max(0, Math.trunc(Number(e.target.value)) || 0))}
      />
    </>
  );
}
