export * from "./content.ts";
export * from "./envelope.ts";
export * from "./interaction-types.ts";
export * from "./kinds.ts";
export * from "./stop-reasons.ts";
