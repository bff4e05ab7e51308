import { describe, expect, it } from "vitest";
import { approve } from "./approval.js";

describe("approve", () => {
  it("runs an allowlisted command without asking", async () => {
    await expect(approve("git status", "allowlist")).resolves.toBe(true);
  });

  it("matches the allowlist at the start of the command only", async () => {
    await expect(approve("ls && echo hi", "allowlist")).resolves.toBe(true);
  });
});
