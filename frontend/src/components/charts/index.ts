// Chart wrappers: the only modules allowed to import recharts.
export { ChartCursorProvider, useCursorStore } from "./cursor";
export { familyColor, runStyle } from "./families";
export { MetricChart, type MetricSeries } from "./MetricChart";
export type { OverlayBand, OverlaySeries } from "./OverlayChart";
export { OverlayChart } from "./OverlayChart";
export type { TimeAnnotation, TimePoint, TimeSeries } from "./TimeSeriesChart";
export { TimeSeriesChart } from "./TimeSeriesChart";
export type { TrendChange, TrendLevel, TrendMarkerTick, TrendRunPoint } from "./TrendChart";
export { TrendChart } from "./TrendChart";
