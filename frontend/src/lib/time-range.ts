// A time range selected on a chart (seconds from run start), kept in the URL as ?t=START-END so a
// zoomed view survives a reload and can be pasted into a review. Every chart of the page reads the
// same parameter, so dragging on one chart zooms them all.
import { useCallback, useMemo } from "react";
import { useNavigate, useSearchParams } from "react-router";
import { readableSearch } from "./url-state";

export interface TimeRange {
  start: number;
  end: number;
}

export const RANGE_PARAM = "t";
/** Shorter than this (seconds) is a click, not a selection. */
export const MIN_RANGE_S = 0.5;

const NUM = String.raw`-?\d+(?:\.\d+)?`;
const RANGE = new RegExp(`^(${NUM})-(${NUM})$`);

/** "12-48.5" -> {start: 12, end: 48.5}; anything else (reversed, empty, too short) -> null. */
export function parseRange(raw: string | null | undefined): TimeRange | null {
  const m = raw ? RANGE.exec(raw.trim()) : null;
  if (!m) return null;
  const start = Number(m[1]);
  const end = Number(m[2]);
  if (!Number.isFinite(start) || !Number.isFinite(end) || end - start < MIN_RANGE_S) return null;
  return { start, end };
}

/** Tenths of a second are as fine as a 1 Hz chart needs, and keep the URL short. */
export function formatRange(r: TimeRange): string {
  const f = (v: number) => String(Math.round(v * 10) / 10);
  return `${f(r.start)}-${f(r.end)}`;
}

/** Orders two dragged positions and refuses a selection too short to mean anything. */
export function rangeFrom(a: number, b: number): TimeRange | null {
  const start = Math.min(a, b);
  const end = Math.max(a, b);
  return end - start >= MIN_RANGE_S ? { start, end } : null;
}

export function writeRange(params: URLSearchParams, range: TimeRange | null): URLSearchParams {
  const next = new URLSearchParams(params);
  if (range) next.set(RANGE_PARAM, formatRange(range));
  else next.delete(RANGE_PARAM);
  return next;
}

/** The page's selected range from the URL, and a setter that replaces the history entry. */
export function useUrlTimeRange(): [TimeRange | null, (r: TimeRange | null) => void] {
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const raw = params.get(RANGE_PARAM);
  const range = useMemo(() => parseRange(raw), [raw]);
  const setRange = useCallback(
    (r: TimeRange | null) => {
      navigate(
        { search: readableSearch(writeRange(new URLSearchParams(window.location.search), r)) },
        // Zooming changes only the URL's range: the page stays where it is scrolled (it jumped to the top).
        { replace: true, preventScrollReset: true },
      );
    },
    [navigate],
  );
  return [range, setRange];
}
