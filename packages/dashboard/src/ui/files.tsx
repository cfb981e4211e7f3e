/** Files in the browser: save a downloaded blob under a name, pick a file, read it as base64 for the API. */
import { useId } from 'react';

export function saveBlob(blob: Blob, fileName: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.click();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The file's bytes as base64 (the API's `content_base64`). */
export async function fileBase64(file: Blob): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** A labelled file picker. */
export function FileField(props: {
  label: string;
  accept: string;
  hint?: string;
  onChange(f: File | null): void;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{props.label}</label>
      <input
        id={id}
        type="file"
        accept={props.accept}
        required
        aria-describedby={props.hint ? `${id}-hint` : undefined}
        onChange={(e) => props.onChange(e.target.files?.[0] ?? null)}
      />
      {props.hint ? (
        <small id={`${id}-hint`} className="hint">
          {props.hint}
        </small>
      ) : null}
    </div>
  );
}
