// The flame graph model: pure functions over a flat frame tree (no DOM, no React). Renderers and pages
// build on it; see tree.ts for the data layout.
export * from "./colors";
export * from "./diff";
export * from "./folded";
export * from "./functions";
export * from "./layout";
export * from "./search";
export * from "./tree";
