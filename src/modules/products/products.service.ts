import { isUuid } from "../../db/uuid.js";
import type { Transaction } from "../../db/transaction.js";
import { AppError } from "../../errors.js";
import type { AccountRepository } from "../accounts/account.repository.js";
import { plans } from "../billing/plans.js";
import type { Product } from "./product.entity.js";
import type { ProductRepository } from "./product.repository.js";

/** The key a product is found by: origin and path, without query, fragment or trailing slash. */
export function productKey(url: URL): string {
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.protocol}//${url.host}${path}`;
}

export class ProductsService {
  constructor(
    private readonly products: ProductRepository,
    private readonly accounts: AccountRepository,
  ) {}

  /**
   * The account's product for this address, created when absent (PLAN_LIMIT_REACHED
   * past the plan's products), inside the caller's transaction so a refused
   * score creates nothing.
   */
  async productFor(tx: Transaction, accountId: string, url: URL): Promise<Product> {
    const key = productKey(url);
    const existing = await this.products.findByUrl(tx, accountId, key);
    if (existing) return existing;
    // Serializes product creation per account, so two concurrent first scores cannot both pass the limit.
    const account = await this.accounts.lock(tx, accountId);
    const again = await this.products.findByUrl(tx, accountId, key);
    if (again) return again;
    const plan = plans[account.plan];
    if (plan.products !== null && (await this.products.countInAccount(tx, accountId)) >= plan.products) {
      throw new AppError(
        "PLAN_LIMIT_REACHED",
        `The ${plan.name} plan includes ${plan.products} product${plan.products === 1 ? "" : "s"}, all in use.`,
        {
          action: "Score an existing product's address, or upgrade your plan for more products.",
        },
      );
    }
    return this.products.create(tx, { accountId, url: key, name: url.hostname });
  }

  /** The caller's product; another account's is NOT_FOUND (its existence is not revealed). */
  async get(accountId: string, id: string): Promise<Product> {
    const product = isUuid(id) ? await this.products.findInAccount(accountId, id) : null;
    if (!product) throw new AppError("NOT_FOUND", "No such product.");
    return product;
  }

  /** Newest first, keyset-paginated. */
  async list(
    accountId: string,
    limit: number,
    cursor: string | undefined,
  ): Promise<{ products: Product[]; nextCursor: string | null }> {
    const page = await this.products.page(accountId, limit, cursor);
    return { products: page.rows, nextCursor: page.nextCursor };
  }
}
