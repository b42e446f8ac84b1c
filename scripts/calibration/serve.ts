import { resolve } from "node:path";
import { StaticHost } from "./static-host.js";

/**
 * npx tsx scripts/calibration/serve.ts <corpus>/<name> [original-host,…]
 * Serves one built calibration site on 127.0.0.1 exactly as `npm run calibrate` does
 * (GitHub-Pages-like: /foo answers foo.html, 404.html for unknown paths) and prints its address.
 */
const [root, hosts = ""] = process.argv.slice(2);
if (!root) {
  console.error("usage: npx tsx scripts/calibration/serve.ts <corpus>/<name> [original-host,…]");
  process.exit(2);
}
const host = new StaticHost(resolve(root), hosts.split(",").filter(Boolean));
console.log(await host.start());
process.on("SIGINT", () => void host.stop().then(() => process.exit(0)));
process.on("SIGTERM", () => void host.stop().then(() => process.exit(0)));
