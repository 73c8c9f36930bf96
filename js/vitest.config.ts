import { defineConfig } from "vitest/config";

export default defineConfig({
  // The built bundle, one level up, is read by test/bundle.test.ts.
  server: { fs: { allow: [".."] } },
  test: {
    environment: "jsdom",
    include: ["test/**/*.test.ts"],
  },
});
