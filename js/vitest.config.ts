import { defineConfig } from "vitest/config";

export default defineConfig({
  // The built bundle, one level up, is read by test/bundle.test.ts.
  server: { fs: { allow: [".."] } },
  test: {
    environment: "jsdom",
    include: ["test/**/*.test.{ts,tsx}"],
    setupFiles: ["test/setup.ts"],
    // A guard against a hang, not a time budget: a loaded machine runs the long tests
    // (a view of every surface, thousands of items) many times slower.
    testTimeout: 60_000,
  },
});
