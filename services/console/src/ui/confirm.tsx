import { useEffect, useRef, type ReactNode } from "react";

/**
 * A modal question before anything destructive: the native <dialog>, so focus is trapped and
 * Escape cancels; the confirming button says what will happen.
 */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  /** The button that changes nothing, where "Cancel" would read oddly ("Keep running" for a cancel). */
  cancelLabel?: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useModal(props.open);
  return (
    <dialog
      ref={ref}
      className="dialog"
      onCancel={(e) => (e.preventDefault(), props.onCancel())}
      aria-labelledby="confirm-title"
    >
      <h2 id="confirm-title">{props.title}</h2>
      {props.children ? <div className="dialog-body">{props.children}</div> : null}
      <div className="row end">
        <button type="button" onClick={props.onCancel}>
          {props.cancelLabel ?? "Cancel"}
        </button>
        <button
          type="button"
          className={props.danger ? "danger" : "primary"}
          disabled={props.busy}
          onClick={props.onConfirm}
          autoFocus
        >
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A modal for a form (create key, run with inputs): the same dialog without the fixed buttons. */
export function Modal({
  open,
  title,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  onClose(): void;
  children: ReactNode;
}) {
  const ref = useModal(open);
  return (
    <dialog ref={ref} className="dialog wide" onCancel={(e) => (e.preventDefault(), onClose())} aria-label={title}>
      <div className="row between">
        <h2>{title}</h2>
        <button type="button" className="ghost" aria-label="Close" onClick={onClose}>
          ✕
        </button>
      </div>
      {open ? children : null}
    </dialog>
  );
}

/** The ref for a <dialog> shown as a modal while `open`, and closed when it no longer is. */
function useModal(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return ref;
}
