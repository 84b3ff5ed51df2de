// The regex search field: what matched ("matched 12.3%") or why the pattern is invalid, next to it.
import { forwardRef, useEffect, useRef, useState } from "react";
import { formatPct } from "../format";

interface Props {
  value: string;
  onChange: (v: string) => void;
  /** Share of the profile under a matching frame, or null when there is no search. */
  matched: number | null;
  error: string | null;
  /** Extra text after the percentage ("in base", ...). */
  suffix?: string;
}

export const SearchBox = forwardRef<HTMLInputElement, Props>(function SearchBox(
  { value, onChange, matched, error, suffix },
  ref,
) {
  // The field keeps its own text: the URL (the source of truth) updates in a transition, so values we
  // sent come back late and out of step with typing. Only a value we did not send (back button, link)
  // replaces the text.
  const [text, setText] = useState(value);
  const sent = useRef<string[]>([value]);
  useEffect(() => {
    if (!sent.current.includes(value)) {
      sent.current = [value];
      setText(value);
    }
  }, [value]);
  return (
    <div className="flame-search">
      <label className="sr-only" htmlFor="flame-search">
        Search frames (regular expression)
      </label>
      <input
        ref={ref}
        id="flame-search"
        className="input mono"
        type="search"
        placeholder="Search frames (regex)   press /"
        value={text}
        spellCheck={false}
        autoComplete="off"
        aria-invalid={error ? true : undefined}
        aria-describedby="flame-search-status"
        onChange={(e) => {
          sent.current = [...sent.current.slice(-31), e.target.value];
          setText(e.target.value);
          onChange(e.target.value);
        }}
        onKeyDown={(e) => {
          if (e.key === "Escape") e.currentTarget.blur();
        }}
      />
      <span id="flame-search-status" className="flame-search-status" aria-live="polite">
        {error ? (
          <span className="field-error" role="alert">
            {error}
          </span>
        ) : matched !== null ? (
          <span data-testid="search-matched">
            matched <strong className="tabular">{formatPct(matched)}</strong>
            {suffix ? <span className="muted"> {suffix}</span> : null}
          </span>
        ) : null}
      </span>
    </div>
  );
});
