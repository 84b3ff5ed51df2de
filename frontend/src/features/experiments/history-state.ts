// The experiment history's view state lives in the URL (page, sort, filters, search, selection) so a
// link reproduces the exact list. This module is the only place that knows the parameter names.
import type { Schemas } from "@/api/client";
import {
  dayStartIso,
  patchParams,
  readDate,
  readEnum,
  readInt,
  readIntList,
  readList,
  readString,
} from "@/lib/url-state";

export const SORT_KEYS = ["created", "name", "rps", "p99", "last_run", "runs", "status"] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type Order = "asc" | "desc";

export const EXPERIMENT_STATUSES = [
  "planned",
  "running",
  "done",
  "archived",
] as const satisfies readonly NonNullable<Schemas["ExperimentCreate"]["status"]>[];
export type ExperimentStatus = (typeof EXPERIMENT_STATUSES)[number];

// The latest decision's status, or "none" for experiments without a decision yet.
export const DECISION_FILTERS = ["proposed", "adopted", "rejected", "inconclusive", "none"] as const;
export type DecisionFilter = (typeof DECISION_FILTERS)[number];

export const DEFAULT_PAGE_SIZE = 50;
export const PAGE_SIZES = [25, 50, 100, 200] as const;

export interface HistoryState {
  page: number;
  pageSize: number;
  sort: SortKey;
  order: Order;
  q: string;
  tags: string[];
  status: ExperimentStatus | "";
  decision: DecisionFilter | "";
  /** Calendar dates (YYYY-MM-DD), inclusive, in the viewer's time zone. */
  from: string;
  to: string;
  /** Selected experiment ids, kept across pages for Compare. */
  selected: number[];
  /** Archived experiments are hidden unless this is on (or the status filter is "archived"). */
  archived: boolean;
}

const DEFAULTS = { page: 1, size: DEFAULT_PAGE_SIZE, sort: "created", order: "desc" } as const;

export function parseHistoryState(params: URLSearchParams): HistoryState {
  return {
    page: readInt(params, "page", 1),
    pageSize: readInt(params, "size", DEFAULT_PAGE_SIZE, 1, 500),
    sort: readEnum(params, "sort", SORT_KEYS, "created"),
    order: readEnum(params, "order", ["asc", "desc"] as const, "desc"),
    q: readString(params, "q"),
    tags: readList(params, "tag"),
    status: readEnum(params, "status", ["", ...EXPERIMENT_STATUSES] as const, ""),
    decision: readEnum(params, "decision", ["", ...DECISION_FILTERS] as const, ""),
    from: readDate(params, "from"),
    to: readDate(params, "to"),
    selected: readIntList(params, "sel"),
    archived: params.get("archived") === "1",
  };
}

/**
 * Applies a change to the URL. Anything that changes which rows match (filters, search, sort, page
 * size) goes back to page 1, otherwise the user lands on an empty page 7 of a 2-page result.
 */
export function updateHistoryParams(
  current: URLSearchParams,
  change: Partial<HistoryState>,
): URLSearchParams {
  const resetsPage =
    change.page === undefined &&
    (
      ["pageSize", "sort", "order", "q", "tags", "status", "decision", "from", "to", "archived"] as const
    ).some((k) => k in change);
  const patch: Record<string, string | number | string[] | number[] | undefined> = {};
  if (change.page !== undefined) patch.page = change.page;
  if (resetsPage) patch.page = 1;
  if (change.pageSize !== undefined) patch.size = change.pageSize;
  if (change.sort !== undefined) patch.sort = change.sort;
  if (change.order !== undefined) patch.order = change.order;
  if (change.q !== undefined) patch.q = change.q.trim();
  if (change.tags !== undefined) patch.tag = change.tags;
  if (change.status !== undefined) patch.status = change.status;
  if (change.decision !== undefined) patch.decision = change.decision;
  if (change.from !== undefined) patch.from = change.from;
  if (change.to !== undefined) patch.to = change.to;
  if (change.selected !== undefined) patch.sel = change.selected;
  if (change.archived !== undefined) patch.archived = change.archived ? "1" : "";
  return patchParams(current, patch, DEFAULTS);
}

export function hasFilters(s: HistoryState): boolean {
  return Boolean(s.q || s.tags.length || s.status || s.decision || s.from || s.to);
}

export function clearFilters(current: URLSearchParams): URLSearchParams {
  return updateHistoryParams(current, { q: "", tags: [], status: "", decision: "", from: "", to: "" });
}

/** The API's query for this state (the server does the paging, sorting and filtering). */
export function historyQuery(s: HistoryState) {
  return {
    page: s.page,
    page_size: s.pageSize,
    sort: s.sort,
    order: s.order,
    q: s.q || undefined,
    tag: s.tags.length ? s.tags : undefined,
    status: s.status || undefined,
    decision: s.decision || undefined,
    include_archived: s.archived || undefined,
    created_after: dayStartIso(s.from),
    // Exclusive upper bound at the next midnight, so "to" includes the whole day.
    created_before: dayStartIso(s.to, 1),
  };
}
