// Where output comes in: drop files (or choose them with the keyboard), or paste text.
import { type DragEvent, useId, useRef, useState } from "react";

interface Props {
  onFiles: (files: File[]) => void;
  onPaste: (text: string) => void;
  reading: boolean;
}

export function AddOutput({ onFiles, onPaste, reading }: Props) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const [text, setText] = useState("");
  const pasteId = useId();
  const hintId = useId();

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    const files = [...e.dataTransfer.files];
    if (files.length) onFiles(files);
    else {
      const dropped = e.dataTransfer.getData("text/plain");
      if (dropped.trim()) onPaste(dropped);
    }
  };
  const addPaste = () => {
    if (!text.trim()) return;
    onPaste(text);
    setText("");
  };

  return (
    <section className="card import-add" aria-label="Add output">
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target; the button inside is the keyboard path */}
      <div
        className="dropzone"
        data-over={over}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <div className="dropzone-title">Drop files here</div>
        <p className="muted" id={hintId}>
          One tool's output per file: wrk, vmstat, pidstat, strace -c… <code>.gz</code> files are fine.
        </p>
        <button type="button" className="btn" onClick={() => inputRef.current?.click()} disabled={reading}>
          {reading ? "Reading…" : "Choose files…"}
        </button>
        <input
          ref={inputRef}
          type="file"
          multiple
          className="sr-only"
          tabIndex={-1}
          aria-label="Files to import"
          aria-describedby={hintId}
          onChange={(e) => {
            const files = [...(e.target.files ?? [])];
            if (files.length) onFiles(files);
            e.target.value = "";
          }}
        />
      </div>
      <div className="paste-box">
        <label htmlFor={pasteId} className="field-label">
          Or paste output
        </label>
        <textarea
          id={pasteId}
          className="textarea mono"
          rows={6}
          placeholder={
            "Running 30s test @ http://proxy:8080/\n  4 threads and 500 connections\n  …\nRequests/sec:  12722.92"
          }
          value={text}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              addPaste();
            }
          }}
          spellCheck={false}
        />
        <div className="actions">
          <button type="button" className="btn" onClick={addPaste} disabled={!text.trim()}>
            Add pasted text
          </button>
          <span className="faint">Ctrl+Enter</span>
        </div>
      </div>
    </section>
  );
}
