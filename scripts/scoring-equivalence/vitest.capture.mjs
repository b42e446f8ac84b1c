// The project's vitest config plus capture-setup.ts (see there).
import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";
import base from "../../vitest.config.mts";

export default mergeConfig(
  base,
  defineConfig({
    root: fileURLToPath(new URL("../..", import.meta.url)),
    test: { setupFiles: [fileURLToPath(new URL("./capture-setup.ts", import.meta.url))] },
  }),
);
