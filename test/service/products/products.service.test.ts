import type { DataSource } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Transactions } from "../../../src/db/transaction.js";
import { AccountRepository } from "../../../src/modules/accounts/account.repository.js";
import { ProductRepository } from "../../../src/modules/products/product.repository.js";
import { ScoreResultRepository } from "../../../src/modules/score/score-result.repository.js";
import { ProductsService } from "../../../src/modules/products/products.service.js";
import { rejectionOf } from "../../support/app-error.js";
import { openClonedDatabase, type ClonedDatabase } from "../../support/database.js";

/** ProductsService over its real repositories on a database of its own: find-or-create, the plan's cap, listing. */
let database: ClonedDatabase;
let dataSource: DataSource;
let products: ProductsService;
let transactions: Transactions;

beforeAll(async () => {
  database = await openClonedDatabase(8);
  dataSource = database.dataSource;
  products = new ProductsService(
    new ProductRepository(dataSource),
    new AccountRepository(dataSource),
    new ScoreResultRepository(dataSource),
    new Transactions(dataSource),
  );
  transactions = new Transactions(dataSource);
});
afterAll(async () => {
  await database?.close();
});

async function account(plan: string): Promise<string> {
  const [row] = (await dataSource.query(
    `INSERT INTO "accounts" ("name", "plan", "billing_cycle_anchor") VALUES ($1, $2, now()) RETURNING "id"`,
    [`${plan} customer`, plan],
  )) as Array<{ id: string }>;
  return row!.id;
}

const productFor = (accountId: string, url: string) =>
  transactions.run((tx) => products.productFor(tx, accountId, new URL(url)));

const productCount = async (accountId: string): Promise<number> =>
  (
    (await dataSource.query(`SELECT COUNT(*)::int AS "n" FROM "products" WHERE "account_id" = $1`, [
      accountId,
    ])) as Array<{ n: number }>
  )[0]!.n;

describe("ProductsService", () => {
  it("finds or creates one product per normalized address", async () => {
    const accountId = await account("pro");
    const created = await productFor(accountId, "https://Example.com/app/?utm=1#pricing");
    expect(created).toMatchObject({ accountId, url: "https://example.com/app", name: "example.com" });
    for (const same of ["https://example.com/app", "https://example.com/app//", "https://EXAMPLE.com/app?x=2"]) {
      expect((await productFor(accountId, same)).id).toBe(created.id);
    }
    expect((await productFor(accountId, "http://example.com/app")).id).not.toBe(created.id);
    expect(await productCount(accountId)).toBe(2);
  });

  it("refuses a product past the plan's cap, creating nothing, while existing addresses still resolve", async () => {
    const accountId = await account("free"); // one product
    const first = await productFor(accountId, "https://one.example/");
    expect((await rejectionOf(productFor(accountId, "https://two.example/"))).code).toBe("PLAN_LIMIT_REACHED");
    expect((await productFor(accountId, "https://one.example")).id).toBe(first.id);
    expect(await productCount(accountId)).toBe(1);
  });

  it("keeps the cap when first scores of different addresses race", async () => {
    const accountId = await account("pro"); // five products
    const outcomes = await Promise.allSettled(
      Array.from({ length: 7 }, (_, i) => productFor(accountId, `https://race${i}.example/`)),
    );
    expect(outcomes.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(5);
    expect(await productCount(accountId)).toBe(5);
  });

  it("rolls the product back with the caller's transaction", async () => {
    const accountId = await account("pro");
    await expect(
      transactions.run(async (tx) => {
        await products.productFor(tx, accountId, new URL("https://refused.example/"));
        throw new Error("the score was refused");
      }),
    ).rejects.toThrow("the score was refused");
    expect(await productCount(accountId)).toBe(0);
  });

  it("lists newest first by keyset pages, and hides other accounts' products", async () => {
    const accountId = await account("business");
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push(await productFor(accountId, `https://page${i}.example/`));
    const seen: Array<{ id: string; createdAt: Date }> = [];
    let cursor: string | undefined;
    do {
      const page = await products.list(accountId, 2, cursor);
      expect(page.products.length).toBeLessThanOrEqual(2);
      seen.push(...page.products);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    // Every product once, newest first (two created in the same millisecond are ordered by id).
    expect(seen.map((product) => product.id).sort()).toEqual(created.map((product) => product.id).sort());
    const times = seen.map((product) => product.createdAt.getTime());
    expect(times).toEqual([...times].sort((a, b) => b - a));

    const stranger = await account("business");
    expect((await products.get(accountId, created[0]!.id)).id).toBe(created[0]!.id);
    expect((await rejectionOf(products.get(stranger, created[0]!.id))).code).toBe("NOT_FOUND");
    expect((await rejectionOf(products.get(accountId, "not-a-uuid"))).code).toBe("NOT_FOUND");
  });
});
