// Chart wrappers: the only modules allowed to import recharts.
export type { TimeAnnotation, TimePoint, TimeSeries } from "./TimeSeriesChart";
export { TimeSeriesChart } from "./TimeSeriesChart";
