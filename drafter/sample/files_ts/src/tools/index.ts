// Importing a tool module registers it; this file decides which tools exist.
import "./shell.js";
import "./files.js";

export { dispatch, toolDefinitions } from "./registry.js";
export type { ToolContext } from "./registry.js";
