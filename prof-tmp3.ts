import { parse } from "parse5";
import { walkTree, parse5Adapter } from "./src/modules/crawl/html-tree.js";
import { extractPage } from "./src/modules/crawl/extract.js";
const { page } = await import("/tmp/pagegen.ts");
const pages = Array.from({ length: 60 }, (_, i) => page(i) as string);
const mode = process.argv[2];
for (let r = 0; r < 6; r++) {
  let walkNs = 0n;
  const t = process.hrtime.bigint();
  pages.forEach((h, i) => {
    if (mode === "parse") parse(h);
    else if (mode === "walk") { const tree = parse(h); const w = process.hrtime.bigint(); walkTree(tree, parse5Adapter); walkNs += process.hrtime.bigint() - w; }
    else extractPage({ url: `https://acme.example/products/${i}`, status: 200, body: h, kind: "html", headers: {} });
  });
  if (r > 2) console.log(mode, (Number(process.hrtime.bigint() - t) / 1e6 / 60).toFixed(2), mode === "walk" ? (Number(walkNs) / 1e6 / 60).toFixed(2) : "");
}
