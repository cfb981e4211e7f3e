/** Pieces the detail pages' action bars share: a button per action and a cancel dialog with a reason. */
import { type ReactNode, useState } from 'react';
import { Modal } from '../ui/dialogs';
import { ErrorBox, Field } from '../ui/kit';

/** The shared state of an action bar: `useApiActions` (query.ts), which also refetches what changed. */
export interface Act {
  busy: boolean;
  error: unknown;
  run<T>(fn: () => Promise<T>): Promise<T | undefined>;
}

/** One action button: runs `fn` through the shared action state (then `done`, if given). */
export function ActButton(props: {
  act: Act;
  label: string;
  /** Read to screen readers after the label (which row the button acts on). */
  context?: string;
  fn(): Promise<unknown>;
  done?(): void;
  className?: string;
}) {
  return (
    <button
      type="button"
      className={props.className}
      disabled={props.act.busy}
      onClick={() =>
        props.act.run(async () => {
          await props.fn();
          props.done?.();
        })
      }
    >
      {props.label}
      {props.context ? <span className="visually-hidden"> {props.context}</span> : null}
    </button>
  );
}

/** "Cancel …" that asks for confirmation and an optional reason in a dialog. */
export function CancelWithReason(props: {
  label: string;
  what: string;
  onConfirm(reason: string | undefined): Promise<unknown>;
  done?(): void;
  act: Act;
}) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  return (
    <>
      <button type="button" className="danger" onClick={() => setOpen(true)}>
        {props.label}
      </button>
      {open ? (
        <Modal title={props.label} onClose={() => setOpen(false)}>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              props.act.run(async () => {
                await props.onConfirm(reason.trim() || undefined);
                setOpen(false);
                props.done?.();
              });
            }}
          >
            <p>{props.what} This cannot be undone.</p>
            <Field label="Reason (optional)" name="reason" value={reason} onChange={setReason} />
            <ErrorBox error={props.act.error} />
            <button type="submit" className="danger" disabled={props.act.busy}>
              Confirm cancellation
            </button>
          </form>
        </Modal>
      ) : null}
    </>
  );
}

/** A titled small form (edit, on-demand run): submit runs through the action state. */
export function ActionForm(props: {
  title: string;
  submit: string;
  act: Act;
  onSubmit(): Promise<unknown>;
  children: ReactNode;
}) {
  return (
    <form
      className="inline"
      aria-label={props.title}
      onSubmit={(e) => {
        e.preventDefault();
        props.act.run(props.onSubmit);
      }}
    >
      {props.children}
      <button type="submit" disabled={props.act.busy}>
        {props.submit}
      </button>
    </form>
  );
}
